package handoff

import "encoding/json"

// Entry is one recorded decision with the request and input it was made from.
type Entry struct {
	Seq        uint64            `json:"seq"`
	Time       string            `json:"time"`
	Hash       string            `json:"hash"`
	Request    json.RawMessage   `json:"request"`
	Validation []ValidationError `json:"validation"`
	Derived    map[string]any    `json:"derived"`
	Now        string            `json:"now"`
	Decision   *Decision         `json:"decision"`
	// Redaction is set when Request is the redacted copy the engine recorded instead of
	// the request: a reason said it carried a secret or personal data.
	Redaction *Redaction `json:"redaction,omitempty"`
}
