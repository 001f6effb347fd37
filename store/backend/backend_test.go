package backend_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/backend"
)

// TestPostgresURLRefused names what is wrong with a URL that is not a store's.
func TestPostgresURLRefused(t *testing.T) {
	_, err := backend.Open(context.Background(), store.Options{URL: "mysql://root:s3cret@db/handoff"})
	require.ErrorIs(t, err, store.ErrInvalid)
	assert.NotContains(t, err.Error(), "s3cret")
	_, err = backend.Open(context.Background(), store.Options{URL: "postgres://root:s3cret@db/handoff?connect_timeout=x"})
	require.ErrorIs(t, err, store.ErrInvalid)
	assert.NotContains(t, err.Error(), "s3cret")
}
