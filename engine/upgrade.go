package engine

import (
	"context"
	"fmt"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
)

// upgrade brings a Badger store written by an earlier version to the current format,
// and summarizes the workflows it holds without a summary (the store marked them at
// Open): once, each look after costs a seek per tenant.
func (e *Engine) upgrade(ctx context.Context, l *badger.Log) error {
	if l.LegacyIdempotency() {
		if err := e.upgradeIdempotency(ctx, l); err != nil {
			return err
		}
	}
	if l.Unindexed() {
		if err := e.upgradeIndex(ctx, l); err != nil {
			return err
		}
	}
	if e.opts.ReadOnly {
		return nil // summarized at each list, as nothing can be kept
	}
	n, err := e.upgradeSummaries(ctx, l)
	if err != nil {
		return err
	}
	if n > 0 {
		e.logger.Info("summarized the workflows of an earlier store format", "workflows", n)
	}
	return nil
}

// upgradeIdempotency binds the idempotency keys of a store an earlier version wrote (each
// held a copy of its decision) to the log records of those decisions: the record of the
// key's workflow that holds the decision with the copy's decision_id, for the key's
// request_id. A copy that is no record's decision is left unbound: resending that request
// then fails with store.ErrTampered, and verify reports the key.
func (e *Engine) upgradeIdempotency(ctx context.Context, l *badger.Log) error {
	type located struct{ seq uint64 }
	index := map[string]map[string]located{} // tenant/workflow -> decision id -> record
	bound, left, err := l.UpgradeIdempotency(ctx, func(tenant, workflow, key string, response []byte) (uint64, error) {
		d, err := pipeline.DecodeDecision(response)
		if err != nil || d.RequestID != key {
			return 0, nil
		}
		w := tenant + "\x00" + workflow
		if index[w] == nil {
			index[w] = map[string]located{}
			err := l.Records(ctx, tenant, workflow, 1, func(rec store.Record) error {
				ent, err := pipeline.DecodeRecordedEntry(rec.Payload)
				if err != nil {
					return nil
				}
				if rd, err := pipeline.DecodeDecision(ent.Decision); err == nil && rd.DecisionID != "" {
					index[w][rd.DecisionID] = located{rec.Seq}
				}
				return nil
			})
			if err != nil {
				return 0, fmt.Errorf("engine: upgrade the idempotency keys of %s/%s: %w", tenant, workflow, err)
			}
		}
		return index[w][d.DecisionID].seq, nil
	})
	if err != nil {
		return err
	}
	e.logger.Info("bound the idempotency keys of an earlier store format to their records", "bound", bound, "left_unbound", left)
	return nil
}

// upgradeIndex indexes the records of a store written before the record index by the
// decision id each holds, so that Explain finds them with one read. A record holding no
// decodable decision is left out; an id held by two records (which the engine never
// draws) stays with the first.
func (e *Engine) upgradeIndex(ctx context.Context, l *badger.Log) error {
	indexed, duplicates, err := l.UpgradeIndex(ctx, recordDecisionID)
	if err != nil {
		return err
	}
	e.logger.Info("indexed the records of an earlier store format by decision id", "indexed", indexed, "duplicates", duplicates)
	return nil
}

// recordDecisionID is the id of the decision a log record holds, "" for none.
func recordDecisionID(payload []byte) string {
	ent, err := pipeline.DecodeRecordedEntry(payload)
	if err != nil {
		return ""
	}
	d, err := pipeline.DecodeDecision(ent.Decision)
	if err != nil {
		return ""
	}
	return d.DecisionID
}
