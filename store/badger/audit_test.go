package badger

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func TestAuditInvalid(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	ctx := context.Background()
	_, err := l.Audit(ctx, "a", store.NewRecord{Type: "x", Payload: []byte("not json")}, t0)
	require.ErrorIs(t, err, store.ErrInvalid)
	_, err = l.Audit(ctx, "a", store.NewRecord{Payload: []byte(`{}`)}, t0)
	require.ErrorIs(t, err, store.ErrInvalid)
	assert.Empty(t, auditRecords(t, l, "a"))
}
