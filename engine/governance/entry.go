package governance

import (
	"encoding/json"
	"fmt"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// DecodeEntry reads a log record as the vocabulary shows it: the request as the bytes
// recorded, the decision decoded.
func DecodeEntry(rec store.Record) (handoff.Entry, error) {
	raw, err := pipeline.DecodeLogEntry[json.RawMessage, *handoff.Decision](rec.Payload)
	if err != nil {
		return handoff.Entry{}, fmt.Errorf("engine: record %d: %w", rec.Seq, err)
	}
	return handoff.Entry{Seq: rec.Seq, Time: pipeline.FormatTime(rec.Time), Hash: rec.Hash, Request: raw.Request,
		Validation: raw.Validation, Derived: raw.Derived, Now: raw.Now, Decision: raw.Decision, Redaction: raw.Redaction}, nil
}
