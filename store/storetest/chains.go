package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func testChainsListsEveryChainInKeyOrder(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	assert.Empty(t, Chains(t, l), "an empty store")

	heads := map[string]store.Head{}
	for _, tw := range [][2]string{{"b", "w2"}, {"a", "w3"}, {"b", "w1"}, {"b", "w10"}, {"c", "x"}} {
		heads[tw[0]+"/"+tw[1]] = Create(t, l, tw[0], tw[1], 2)
	}
	audit := func(tenant string, n int) {
		for i := range n {
			r, err := l.Audit(ctx, tenant, Rec("rejected", i), T0)
			require.NoError(t, err)
			heads[tenant+"/"] = store.Head{Seq: r.Seq, Hash: r.Hash}
		}
	}
	audit("b", 3)
	audit("", 1)
	audit("d", 2) // a tenant with an audit stream only

	want := []store.Chain{
		{Tenant: "", Audit: true, Head: heads["/"]},
		{Tenant: "a", Workflow: "w3", Head: heads["a/w3"]},
		{Tenant: "b", Audit: true, Head: heads["b/"]},
		{Tenant: "b", Workflow: "w1", Head: heads["b/w1"]},
		{Tenant: "b", Workflow: "w10", Head: heads["b/w10"]},
		{Tenant: "b", Workflow: "w2", Head: heads["b/w2"]},
		{Tenant: "c", Workflow: "x", Head: heads["c/x"]},
		{Tenant: "d", Audit: true, Head: heads["d/"]},
	}
	assert.Equal(t, want, Chains(t, l))

	// The heads are the chains' own.
	for _, c := range Chains(t, l) {
		var want store.Head
		if c.Audit {
			got := AuditRecords(t, l, c.Tenant)
			want = store.Head{Seq: got[len(got)-1].Seq, Hash: got[len(got)-1].Hash}
		} else {
			_, want, _ = l.State(ctx, c.Tenant, c.Workflow)
		}
		assert.Equal(t, want, c.Head, "%s/%s", c.Tenant, c.Workflow)
	}

	stop := errors.New("stop")
	n := 0
	err := l.Chains(ctx, func(store.Chain) error {
		n++
		return stop
	})
	assert.Same(t, stop, err, "the callback's error comes back as is")
	assert.Equal(t, 1, n)
}

// Chains collects the chains Chains lists.
func Chains(t *testing.T, l store.Log) []store.Chain {
	t.Helper()
	var out []store.Chain
	require.NoError(t, l.Chains(context.Background(), func(c store.Chain) error {
		out = append(out, c)
		return nil
	}))
	return out
}
