package badger

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/storetest"
)

// TestVerifyIndexesChecksTheSummaries changes the summaries behind the store's back: an
// entry taken out of the order of activity hides its workflow from the lists, and an
// entry whose head is not the workflow's lists what the workflow no longer is.
func TestVerifyIndexesChecksTheSummaries(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		tamper  func(t *testing.T, l *Log)
		problem string
	}{
		{"an entry gone", func(t *testing.T, l *Log) {
			active := get(t, l, summaryKey("acme", "wf-1"))
			set(t, l, map[string][]byte{string(activeKey("acme", active, "wf-1")): nil})
		}, `summary: workflow "wf-1" has no summary and is not marked unsummarized: the lists pass over it`},
		{"a head set back", func(t *testing.T, l *Log) {
			h := storetest.MustHead(t, l, "acme", "wf-1")
			active := get(t, l, summaryKey("acme", "wf-1"))
			set(t, l, map[string][]byte{string(activeKey("acme", active, "wf-1")): encodeSummary(h.Seq-1, []byte(`{}`))})
		}, `summary: the summary of workflow "wf-1" was written at record 1, not at the workflow's head (2)`},
		{"marked and summarized", func(t *testing.T, l *Log) {
			set(t, l, map[string][]byte{string(unsummarizedKey("acme", "wf-1")): {}})
		}, `summary: workflow "wf-1" has a summary and is marked unsummarized`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := openDisk(t)
			storetest.Summarize(t, l, "acme", "wf-1", 0, t0)
			storetest.Summarize(t, l, "acme", "wf-1", 1, t0)
			storetest.Summarize(t, l, "acme", "wf-2", 0, t0)
			create(t, l, "acme", "wf-3", 1)
			reps, err := l.VerifyIndexes(ctx, store.IndexCheck{Tenant: "acme"})
			require.NoError(t, err)
			require.Empty(t, reps)
			tc.tamper(t, l)
			for _, c := range []store.IndexCheck{{Tenant: "acme"}, {All: true}, {Tenant: "acme", Workflow: "wf-1"}} {
				reps, err = l.VerifyIndexes(ctx, c)
				require.NoError(t, err)
				assert.Equal(t, []store.VerifyReport{{Tenant: "acme", Workflow: "wf-1", Problem: tc.problem}}, reps, "%+v", c)
			}
			reps, err = l.VerifyIndexes(ctx, store.IndexCheck{Tenant: "acme", Workflow: "wf-2"})
			require.NoError(t, err)
			assert.Empty(t, reps)
		})
	}
}

// get reads the value of key.
func get(t *testing.T, l *Log, key []byte) []byte {
	t.Helper()
	var v []byte
	require.NoError(t, l.db.View(func(txn *badger.Txn) error {
		var found bool
		var err error
		v, found, err = getValue(txn, key)
		require.True(t, found, "%q", key)
		return err
	}))
	return v
}
