package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestToyBundleLoads(t *testing.T) {
	e := openToy(t, toyAllow)
	ctx := context.Background()
	d, err := e.Submit(ctx, []byte(`{"request_id":"r1","kind":"start","tenant_id":"t1","trace_id":"tr","actor":{"type":"system","id":"host"},"pack":"toy","subject_id":"s1"}`))
	require.NoError(t, err)
	t.Logf("%+v", d)
	require.Equal(t, Allow, d.Outcome, "reasons: %+v", d.Reasons)
}
