package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/handoff-dev/handoff/store"
)

// State returns a workflow's current state. Every read is scoped by tenant: another
// tenant's workflow is reported as not found (errors.Is(err, store.ErrNotFound)).
func (e *Engine) State(ctx context.Context, tenant, workflow string) (*State, error) {
	snap, _, err := e.log.State(ctx, tenant, workflow)
	if err != nil {
		return nil, err
	}
	return decodeState(snap)
}

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

// History calls fn for every recorded decision of a workflow, oldest first.
func (e *Engine) History(ctx context.Context, tenant, workflow string, fn func(Entry) error) error {
	return e.log.Records(ctx, tenant, workflow, 1, func(rec store.Record) error {
		ent, err := decodeEntry(rec)
		if err != nil {
			return err
		}
		return fn(ent)
	})
}

// Audit calls fn for every record of a tenant's security audit stream, oldest first.
func (e *Engine) Audit(ctx context.Context, tenant string, fn func(Entry) error) error {
	return e.log.AuditRecords(ctx, tenant, func(rec store.Record) error {
		ent, err := decodeEntry(rec)
		if err != nil {
			return err
		}
		return fn(ent)
	})
}

func decodeEntry(rec store.Record) (Entry, error) {
	var raw struct {
		Request    json.RawMessage   `json:"request"`
		Validation []ValidationError `json:"validation"`
		Derived    map[string]any    `json:"derived"`
		Now        string            `json:"now"`
		Decision   *Decision         `json:"decision"`
		Redaction  *Redaction        `json:"redaction"`
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Payload))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Entry{}, fmt.Errorf("engine: record %d: %w", rec.Seq, err)
	}
	return Entry{Seq: rec.Seq, Time: formatTime(rec.Time), Hash: rec.Hash, Request: raw.Request,
		Validation: raw.Validation, Derived: raw.Derived, Now: raw.Now, Decision: raw.Decision, Redaction: raw.Redaction}, nil
}

// Verify walks a workflow's hash chain and reports the first broken record.
func (e *Engine) Verify(ctx context.Context, tenant, workflow string) (store.VerifyReport, error) {
	return e.log.Verify(ctx, tenant, workflow)
}

// VerifyAll verifies every workflow chain and every audit chain of every tenant.
func (e *Engine) VerifyAll(ctx context.Context) ([]store.VerifyReport, error) {
	tenants, err := e.log.Tenants(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.VerifyReport
	for _, t := range tenants {
		reps, err := e.VerifyTenant(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, reps...)
	}
	return out, nil
}

// VerifyTenant verifies every workflow chain of one tenant and its audit chain.
func (e *Engine) VerifyTenant(ctx context.Context, tenant string) ([]store.VerifyReport, error) {
	var wfs []string
	if err := e.log.Workflows(ctx, tenant, func(w string, _ store.Head) error {
		wfs = append(wfs, w)
		return nil
	}); err != nil {
		return nil, err
	}
	var out []store.VerifyReport
	for _, w := range wfs {
		rep, err := e.log.Verify(ctx, tenant, w)
		if err != nil {
			return nil, err
		}
		out = append(out, rep)
	}
	rep, err := e.log.VerifyAudit(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return append(out, rep), nil
}

// Workflows lists a tenant's workflows with their heads.
func (e *Engine) Workflows(ctx context.Context, tenant string, fn func(workflow string, head store.Head) error) error {
	return e.log.Workflows(ctx, tenant, fn)
}

// Tenants lists the tenants with any record.
func (e *Engine) Tenants(ctx context.Context) ([]string, error) {
	return e.log.Tenants(ctx)
}
