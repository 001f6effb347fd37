package engine

import (
	"bytes"
	"encoding/json"
)

// logEntry is the payload of one log record: everything needed to explain and replay
// the decision. The shape is declared once; R and D say how the request and the
// decision are held: as the values decided on when a record is written, as values or
// the recorded bytes when it is read back.
type logEntry[R, D any] struct {
	Request    R                 `json:"request"`
	Validation []ValidationError `json:"validation"`
	Derived    map[string]any    `json:"derived"`
	Now        string            `json:"now"`
	Decision   D                 `json:"decision"`
	// Redaction is set when Request is a redacted copy (see redact).
	Redaction *Redaction `json:"redaction,omitempty"`
}

// writtenEntry is a record as Submit writes it.
type writtenEntry = logEntry[any, *Decision]

// recordedEntry is a record read back to be decided again (replay, explain, the
// decision log, verify): the request as values, the decision as the bytes recorded, so
// a decision made again compares byte for byte.
type recordedEntry = logEntry[map[string]any, json.RawMessage]

// decodeLogEntry reads a log record's payload, numbers kept exact.
func decodeLogEntry[R, D any](payload []byte) (logEntry[R, D], error) {
	var ent logEntry[R, D]
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	err := dec.Decode(&ent)
	return ent, err
}

// decodeRecordedEntry reads a record to decide it again.
func decodeRecordedEntry(payload []byte) (recordedEntry, error) {
	return decodeLogEntry[map[string]any, json.RawMessage](payload)
}
