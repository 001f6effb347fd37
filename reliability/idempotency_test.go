package reliability

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRequestIDsSharingAPrefix plays the happy path with request ids that each extend
// the next one ("….r-1000", "….r-100", "….r-10", …): every id is its own idempotency
// key, so every step gets its scenario's outcome, and each request submitted again is
// answered with its own record. A lookup by prefix or range instead of one exact key
// would answer a request with another's decision, or block it as IDEMPOTENCY_KEY_REUSED.
func TestRequestIDsSharingAPrefix(t *testing.T) {
	ctx := context.Background()
	eng, _ := openDisk(t)
	f := loadFlow(t, "01-happy-path")
	p := &play{f: f, tenant: "acme", workflow: "wf-prefix"}
	id := func(i int) string { return p.workflow + ".r-1" + strings.Repeat("0", len(f.steps)-1-i) }
	var bodies [][]byte
	for !p.done() {
		body, err := p.body(ctx, eng)
		require.NoError(t, err)
		body = edit(t, body, func(m map[string]any) { m["request_id"] = id(p.next) })
		d, err := eng.Submit(ctx, body)
		require.NoError(t, err)
		require.Equal(t, id(p.next), d.RequestID, "step %d answered with another request's decision", p.next+1)
		require.NoError(t, p.observe(d))
		bodies = append(bodies, body)
	}
	chain := chainOf(t, eng, "acme", p.workflow)
	require.Len(t, chain, len(f.steps))
	for i, body := range bodies {
		d, err := eng.Submit(ctx, body)
		require.NoError(t, err)
		require.Equal(t, chain[i].DecisionID, d.DecisionID, "step %d submitted again", i+1)
		require.Equal(t, chain[i].Outcome, d.Outcome, "step %d submitted again", i+1)
	}
	require.Len(t, chainOf(t, eng, "acme", p.workflow), len(f.steps), "nothing recorded twice")
}
