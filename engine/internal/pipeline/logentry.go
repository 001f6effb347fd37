package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// LogEntry is the payload of one log record: everything needed to explain and replay
// the decision. The shape is declared once; R and D say how the request and the
// decision are held: as the values decided on when a record is written, as values or
// the recorded bytes when it is read back.
type LogEntry[R, D any] struct {
	Request    R                 `json:"request"`
	Validation []ValidationError `json:"validation"`
	Derived    map[string]any    `json:"derived"`
	Now        string            `json:"now"`
	Decision   D                 `json:"decision"`
	// Redaction is set when Request is a redacted copy (see redact).
	Redaction *Redaction `json:"redaction,omitempty"`
}

// RecordedEntry is a record read back to be decided again (replay, explain, the
// decision log, verify): the request as values, the decision as the bytes recorded, so
// a decision made again compares byte for byte.
type RecordedEntry = LogEntry[map[string]any, json.RawMessage]

// DecodeLogEntry reads a log record's payload, numbers kept exact.
func DecodeLogEntry[R, D any](payload []byte) (LogEntry[R, D], error) {
	var ent LogEntry[R, D]
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	err := dec.Decode(&ent)
	return ent, err
}

// DecodeRecordedEntry reads a record to decide it again.
func DecodeRecordedEntry(payload []byte) (RecordedEntry, error) {
	return DecodeLogEntry[map[string]any, json.RawMessage](payload)
}

// DecodeDecision reads a recorded decision, numbers kept exact.
func DecodeDecision(b []byte) (*Decision, error) {
	var d Decision
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("engine: decode recorded decision: %w", err)
	}
	return &d, nil
}
