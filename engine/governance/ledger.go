package governance

import (
	"context"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// Ledger reads a decision log with the bundle it was recorded with: it replays,
// explains and verifies the log's decisions, checks checkpoints and exports the
// decision log. It writes nothing and is safe for concurrent use, also with writers.
type Ledger struct {
	log store.Log
	// p is the bundle the log was recorded with: its pack contracts fold the recorded
	// decisions into the states they were decided on.
	p *pipeline.Pipeline
}

// New returns the ledger of log, recorded with p's bundle.
func New(log store.Log, p *pipeline.Pipeline) *Ledger {
	return &Ledger{log: log, p: p}
}

// chains lists the chains of the store from one view of it, in key order (tenant by
// tenant, a tenant's audit stream before its workflows, which come in id order): those
// of tenant when it is set, and with workflow set that workflow only, without the audit
// streams. The list is taken first so that no view is held while the chains are walked.
func (l *Ledger) chains(ctx context.Context, tenant, workflow string) ([]store.Chain, error) {
	var out []store.Chain
	err := l.log.Chains(ctx, func(c store.Chain) error {
		if (tenant == "" || c.Tenant == tenant) && (workflow == "" || c.Workflow == workflow) {
			out = append(out, c)
		}
		return nil
	})
	return out, err
}
