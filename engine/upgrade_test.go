package engine_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// legacyIdem is an idempotency key as the store's earlier format wrote it (store/format.go):
// 0x01, then digest, a copy of the decision and the workflow, each length-prefixed.
func legacyIdem(digest string, decision []byte, workflow string) []byte {
	b := []byte{0x01}
	for _, f := range [][]byte{[]byte(digest), decision, []byte(workflow)} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// TestAStoreOfTheEarlierFormatIsUpgraded turns a store into what the earlier version
// wrote (idempotency keys holding a copy of their decision, no format mark), opens it:
// every key is bound to the record of its decision, a resend gets its recorded decision,
// and verify finds nothing wrong. A key whose copy is no record's decision stays
// unbound and is refused.
func TestAStoreOfTheEarlierFormatIsUpgraded(t *testing.T) {
	ctx := context.Background()
	dir, bodies := videoStore(t)
	e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	decisions := map[string][]byte{}
	require.NoError(t, e.History(ctx, videoTenant, videoWorkflow, func(en engine.Entry) error {
		b, err := json.Marshal(en.Decision)
		decisions[en.Decision.RequestID] = b
		return err
	}))
	require.NoError(t, e.Close())
	require.Len(t, decisions, len(bodies))

	forged := "v01-05"
	rewrite(t, dir, func(get func([]byte) []byte, set func(k, v []byte)) {
		for id, d := range decisions {
			v := get(idemKey(videoTenant, id))
			digest := v[9 : 9+int(beUint64(v[1:9]))]
			if id == forged {
				d = []byte(`{"decision_id":"not-recorded","request_id":"` + id + `","outcome":"allow"}`)
			}
			set(idemKey(videoTenant, id), legacyIdem(string(digest), d, videoWorkflow))
		}
		set([]byte("m/format"), nil)
	})

	e, err = engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	for id, body := range bodies {
		d, err := e.Submit(ctx, body)
		if id == forged {
			require.ErrorIs(t, err, store.ErrTampered, "%s answered with %+v", id, d)
			continue
		}
		require.NoError(t, err, id)
		got, err := json.Marshal(d)
		require.NoError(t, err)
		assert.JSONEq(t, string(decisions[id]), string(got), "%s: the recorded decision", id)
	}
	reps, err := e.VerifyAll(ctx)
	require.NoError(t, err)
	rep := brokenReport(t, reps, videoWorkflow)
	assert.Contains(t, rep.Problem, `key "v01-05" was written by an earlier store format and is bound to no record`)
}
