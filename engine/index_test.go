package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
)

// indexKey is the raw key of the store's record index entry for id (store/keys.go).
func indexKey(id string) []byte {
	return []byte("x/" + id + "\x00\x01")
}

// indexedStore is videoStore with one decision of a security audit stream besides: the
// ids of every decision recorded, workflow decisions first.
func indexedStore(t *testing.T) (dir string, workflowIDs []string, auditID string) {
	t.Helper()
	ctx := context.Background()
	dir, _ = videoStore(t)
	e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	d, err := e.Submit(ctx, []byte(`{"request_id":`))
	require.NoError(t, err)
	require.Equal(t, engine.Block, d.Outcome)
	require.NoError(t, e.History(ctx, videoTenant, videoWorkflow, func(en engine.Entry) error {
		workflowIDs = append(workflowIDs, en.Decision.DecisionID)
		return nil
	}))
	return dir, workflowIDs, d.DecisionID
}

// TestExplainInAStoreWrittenBeforeTheIndex turns a store into what an earlier version
// wrote (no record index; for format 1 no format mark either) and opens it: the records
// are indexed at Open and Explain finds every decision, as it finds them in a new store.
func TestExplainInAStoreWrittenBeforeTheIndex(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		mark []byte // nil: no mark (format 1)
	}{
		{"format 2", []byte("2")},
		{"format 1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, ids, auditID := indexedStore(t)
			rewrite(t, dir, func(get func([]byte) []byte, set func(k, v []byte)) {
				for _, id := range append(ids, auditID) {
					set(indexKey(id), nil)
				}
				set([]byte("m/format"), tc.mark)
			})
			l, err := badger.Open(ctx, store.Options{Dir: dir})
			require.NoError(t, err)
			require.True(t, l.Unindexed())
			_, err = l.Find(ctx, ids[0])
			require.ErrorIs(t, err, store.ErrNotFound, "the index is gone")
			require.NoError(t, l.Close())

			e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
			require.NoError(t, err)
			defer e.Close()
			for _, id := range ids {
				ex, err := e.Explain(ctx, id)
				require.NoError(t, err, id)
				assert.Equal(t, id, ex.Decision.DecisionID)
				assert.True(t, ex.Reproduced, id)
			}
			ex, err := e.Explain(ctx, auditID)
			require.NoError(t, err)
			assert.Equal(t, auditID, ex.Decision.DecisionID)
			_, err = e.Explain(ctx, "no-such-decision")
			require.ErrorIs(t, err, engine.ErrDecisionNotFound)

			// New decisions are indexed as they are recorded.
			d, err := e.Submit(ctx, []byte(`{"request_id":`))
			require.NoError(t, err)
			ex, err = e.Explain(ctx, d.DecisionID)
			require.NoError(t, err)
			assert.Equal(t, d.DecisionID, ex.Decision.DecisionID)
		})
	}
}

// TestExplainRefusesAnIndexEntryNamingAnotherDecision points one decision's index entry
// at the record of another: Explain refuses it rather than explain the wrong decision.
func TestExplainRefusesAnIndexEntryNamingAnotherDecision(t *testing.T) {
	ctx := context.Background()
	dir, ids, _ := indexedStore(t)
	rewrite(t, dir, func(get func([]byte) []byte, set func(k, v []byte)) {
		set(indexKey(ids[0]), get(indexKey(ids[1])))
	})
	e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	_, err = e.Explain(ctx, ids[0])
	require.ErrorIs(t, err, store.ErrTampered)
	assert.NotErrorIs(t, err, engine.ErrDecisionNotFound)
	ex, err := e.Explain(ctx, ids[1])
	require.NoError(t, err, "the other decision is still found")
	assert.Equal(t, ids[1], ex.Decision.DecisionID)
}

// TestADecisionIsIndexedByItsID checks the index the engine writes with each decision.
func TestADecisionIsIndexedByItsID(t *testing.T) {
	ctx := context.Background()
	dir, ids, auditID := indexedStore(t)
	l, err := badger.Open(ctx, store.Options{Dir: dir})
	require.NoError(t, err)
	defer l.Close()
	assert.False(t, l.Unindexed())
	for i, id := range ids {
		loc, err := l.Find(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, store.Location{Tenant: videoTenant, Workflow: videoWorkflow, Seq: uint64(i + 1), Hash: loc.Hash}, loc)
	}
	loc, err := l.Find(ctx, auditID)
	require.NoError(t, err)
	assert.True(t, loc.Audit())
	var payload json.RawMessage
	require.NoError(t, l.AuditRecords(ctx, loc.Tenant, loc.Seq, func(r store.Record) error {
		payload = r.Payload
		return nil
	}))
	assert.Contains(t, string(payload), auditID)
}
