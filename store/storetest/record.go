package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// testRecordReadsOne reads single records of a workflow and of an audit stream, as
// Records and AuditRecords deliver them.
func testRecordReadsOne(ctx context.Context, t *testing.T, b Backend, l store.Log) {
	Create(t, l, "acme", "wf", 3)
	audited, err := l.Audit(ctx, "acme", Rec("security", 1), T0)
	require.NoError(t, err)
	all := Records(t, l, "acme", "wf", 1)
	for _, want := range all {
		got, err := l.Record(ctx, "acme", "wf", want.Seq)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	got, err := l.Record(ctx, "acme", "", 1)
	require.NoError(t, err)
	assert.Equal(t, audited, got, "workflow \"\" is the audit stream")
	for _, missing := range []struct {
		tenant, workflow string
		seq              uint64
	}{{"acme", "wf", 4}, {"acme", "wf", 0}, {"other", "wf", 1}, {"acme", "nope", 1}, {"acme", "", 2}} {
		_, err := l.Record(ctx, missing.tenant, missing.workflow, missing.seq)
		require.ErrorIs(t, err, store.ErrNotFound, "%+v", missing)
	}
}
