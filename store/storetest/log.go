package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func testClosed(t *testing.T, bs []Backend) {
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			l, _ := b.Open(t)
			Create(t, l, "a", "w", 1)
			require.NoError(t, l.Close())
			require.NoError(t, l.Close(), "a second Close does nothing")

			_, err := l.Append(ctx, store.Append{Tenant: "a", Workflow: "w", ExpectedVersion: 1, Records: []store.NewRecord{Rec("x", 1)}})
			assert.ErrorIs(t, err, store.ErrClosed)
			_, _, err = l.State(ctx, "a", "w")
			assert.ErrorIs(t, err, store.ErrClosed)
			_, _, err = l.Owner(ctx, "w")
			assert.ErrorIs(t, err, store.ErrClosed)
			_, _, _, err = l.Idempotent(ctx, "a", "k")
			assert.ErrorIs(t, err, store.ErrClosed)
			assert.ErrorIs(t, l.Records(ctx, "a", "w", 0, func(store.Record) error { return nil }), store.ErrClosed)
			assert.ErrorIs(t, l.Workflows(ctx, "a", func(string, store.Head) error { return nil }), store.ErrClosed)
			_, err = l.Tenants(ctx)
			assert.ErrorIs(t, err, store.ErrClosed)
			_, err = l.Verify(ctx, "a", "w")
			assert.ErrorIs(t, err, store.ErrClosed)
			_, err = l.Audit(ctx, "a", Rec("x", 1), T0)
			assert.ErrorIs(t, err, store.ErrClosed)
			assert.ErrorIs(t, l.AuditRecords(ctx, "a", 0, func(store.Record) error { return nil }), store.ErrClosed)
			_, err = l.AuditHead(ctx, "a")
			assert.ErrorIs(t, err, store.ErrClosed)
			assert.ErrorIs(t, l.Chains(ctx, func(store.Chain) error { return nil }), store.ErrClosed)
			_, err = l.VerifyAudit(ctx, "a")
			assert.ErrorIs(t, err, store.ErrClosed)
		})
	}
}
