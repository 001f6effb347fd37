package store

import (
	"context"
	"errors"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAuditHeadIsTheLastAuditRecord(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, l Log) {
		ctx := context.Background()
		head, err := l.AuditHead(ctx, "acme")
		require.NoError(t, err)
		assert.Equal(t, Head{}, head, "an empty stream")
		for i := range 4 {
			_, err := l.Audit(ctx, "acme", rec("rejected", i), t0)
			require.NoError(t, err)
			got := auditRecords(t, l, "acme")
			last := got[len(got)-1]
			head, err := l.AuditHead(ctx, "acme")
			require.NoError(t, err)
			assert.Equal(t, Head{Seq: last.Seq, Hash: last.Hash}, head)
		}
		head, err = l.AuditHead(ctx, "other")
		require.NoError(t, err)
		assert.Equal(t, Head{}, head, "another tenant's stream is its own")
	})
}

func TestAuditRecordsFromASeq(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	ctx := context.Background()
	for i := range 5 {
		_, err := l.Audit(ctx, "acme", rec("rejected", i), t0)
		require.NoError(t, err)
	}
	all := auditRecords(t, l, "acme")
	for _, tc := range []struct {
		from uint64
		want []Record
	}{
		{0, all},
		{1, all},
		{3, all[2:]},
		{5, all[4:]},
		{6, nil},
	} {
		var got []Record
		require.NoError(t, l.AuditRecords(ctx, "acme", tc.from, func(r Record) error {
			got = append(got, r)
			return nil
		}))
		assert.Equal(t, tc.want, got, "from %d", tc.from)
	}
}

func chains(t *testing.T, l Log) []Chain {
	t.Helper()
	var out []Chain
	require.NoError(t, l.Chains(context.Background(), func(c Chain) error {
		out = append(out, c)
		return nil
	}))
	return out
}

func TestChainsListsEveryChainInKeyOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, l Log) {
		ctx := context.Background()
		assert.Empty(t, chains(t, l), "an empty store")

		heads := map[string]Head{}
		for _, tw := range [][2]string{{"b", "w2"}, {"a", "w3"}, {"b", "w1"}, {"b", "w10"}, {"c", "x"}} {
			heads[tw[0]+"/"+tw[1]] = create(t, l, tw[0], tw[1], 2)
		}
		audit := func(tenant string, n int) {
			for i := range n {
				r, err := l.Audit(ctx, tenant, rec("rejected", i), t0)
				require.NoError(t, err)
				heads[tenant+"/"] = Head{Seq: r.Seq, Hash: r.Hash}
			}
		}
		audit("b", 3)
		audit("", 1)
		audit("d", 2) // a tenant with an audit stream only

		want := []Chain{
			{Tenant: "", Audit: true, Head: heads["/"]},
			{Tenant: "a", Workflow: "w3", Head: heads["a/w3"]},
			{Tenant: "b", Audit: true, Head: heads["b/"]},
			{Tenant: "b", Workflow: "w1", Head: heads["b/w1"]},
			{Tenant: "b", Workflow: "w10", Head: heads["b/w10"]},
			{Tenant: "b", Workflow: "w2", Head: heads["b/w2"]},
			{Tenant: "c", Workflow: "x", Head: heads["c/x"]},
			{Tenant: "d", Audit: true, Head: heads["d/"]},
		}
		assert.Equal(t, want, chains(t, l))

		// The heads are the chains' own.
		for _, c := range chains(t, l) {
			var want Head
			if c.Audit {
				got := auditRecords(t, l, c.Tenant)
				want = Head{Seq: got[len(got)-1].Seq, Hash: got[len(got)-1].Hash}
			} else {
				_, want, _ = l.State(ctx, c.Tenant, c.Workflow)
			}
			assert.Equal(t, want, c.Head, "%s/%s", c.Tenant, c.Workflow)
		}

		stop := errors.New("stop")
		n := 0
		err := l.Chains(ctx, func(Chain) error {
			n++
			return stop
		})
		assert.Same(t, stop, err, "the callback's error comes back as is")
		assert.Equal(t, 1, n)
	})
}

func TestChainsListsAChainWhoseHeadIsGone(t *testing.T) {
	l, dir := openDisk(t)
	create(t, l, "acme", "wf-1", 2)
	_, err := l.Audit(context.Background(), "acme", rec("rejected", 1), t0)
	require.NoError(t, err)
	require.NoError(t, l.Close())
	tamper(t, dir, func(txn *badger.Txn) error {
		if err := txn.Delete(auditHeadKey("acme")); err != nil {
			return err
		}
		return txn.Delete(headKey("acme", "wf-1"))
	})
	l = reopen(t, dir)
	assert.Equal(t, []Chain{
		{Tenant: "acme", Audit: true},
		{Tenant: "acme", Workflow: "wf-1"},
	}, chains(t, l), "listed with a zero head, for Verify to report")
}
