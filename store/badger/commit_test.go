package badger

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// group builds requests for commitGroup, called directly so that the
// members of a group are known.
func group(ctx context.Context, as ...store.Append) []*appendReq {
	var g []*appendReq
	for _, a := range as {
		g = append(g, &appendReq{ctx: ctx, a: &a, res: make(chan appendResult, 1)})
	}
	return g
}

func result(t *testing.T, r *appendReq) appendResult {
	t.Helper()
	select {
	case res := <-r.res:
		return res
	default:
		t.Fatal("no result delivered")
		return appendResult{}
	}
}

// TestCommitGroupIndependentChecks puts conflicting appends in one group:
// each is checked against the state left by the ones before it, the
// failures write nothing and the others commit.
func TestCommitGroupIndependentChecks(t *testing.T) {
	// NoGroupCommit: no committer goroutine runs; the test drives
	// commitGroup itself.
	l, err := Open(context.Background(), store.Options{InMemory: true, NoGroupCommit: true})
	require.NoError(t, err)
	defer l.Close()
	ctx := context.Background()
	create(t, l, "acme", "wf-1", 1)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	bump := func(wf string, v uint64, key string) store.Append {
		return store.Append{Tenant: "acme", Workflow: wf, ExpectedVersion: v, BumpVersion: true,
			Records: []store.NewRecord{rec("decision", int(v))}, IdempotencyKey: key, RequestDigest: key, Time: t0}
	}
	create2 := store.Append{Tenant: "acme", Workflow: "wf-2", Create: true, BumpVersion: true,
		Records: []store.NewRecord{rec("start", 1)}, Time: t0}
	g := group(ctx,
		bump("wf-1", 1, "k1"), // 0: wins
		bump("wf-1", 1, "k2"), // 1: stale, sees 0's bump
		bump("wf-1", 2, "k1"), // 2: duplicate of 0
		bump("wf-1", 2, "k3"), // 3: builds on 0
		create2,               // 4: creates wf-2
		create2,               // 5: exists, sees 4
		bump("wf-3", 0, ""),   // 6: not found
	)
	g = append(g, group(canceled, bump("wf-1", 3, "k4"))...) // 7: canceled
	carry := l.commitGroup(g, nil)
	assert.Empty(t, carry)

	r0 := result(t, g[0])
	require.NoError(t, r0.err)
	assert.Equal(t, uint64(2), r0.head.StateVersion)
	assert.Equal(t, store.StaleError{Expected: 1, Actual: 2}, *requireStale(t, result(t, g[1]).err))
	var dup *store.DuplicateError
	require.ErrorAs(t, result(t, g[2]).err, &dup)
	assert.Equal(t, r0.head.Hash, dup.Record.Hash, "the duplicate's answer is the record of its twin, in the same group")
	r3 := result(t, g[3])
	require.NoError(t, r3.err)
	assert.Equal(t, store.Head{Seq: 3, StateVersion: 3, Hash: r3.head.Hash}, r3.head)
	require.NoError(t, result(t, g[4]).err)
	require.ErrorIs(t, result(t, g[5]).err, store.ErrExists)
	require.ErrorIs(t, result(t, g[6]).err, store.ErrNotFound)
	require.ErrorIs(t, result(t, g[7]).err, context.Canceled)

	_, head, err := l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, r3.head, head)
	got := records(t, l, "acme", "wf-1", 0)
	require.Len(t, got, 3)
	assert.Equal(t, got[1].Hash, got[2].PrevHash)
	rep, err := l.Verify(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)
	_, _, found, err := l.Idempotent(ctx, "acme", "k2")
	require.NoError(t, err)
	assert.False(t, found, "a stale append must not record its key")
	_, _, found, err = l.Idempotent(ctx, "acme", "k4")
	require.NoError(t, err)
	assert.False(t, found, "a canceled append must not record its key")
}

func requireStale(t *testing.T, err error) *store.StaleError {
	t.Helper()
	var se *store.StaleError
	require.ErrorAs(t, err, &se)
	return se
}

// TestCommitGroupCarry shrinks the transaction limit so that a group
// overflows: the appends that do not fit wait for the next group, and an
// append too large on its own fails alone.
func TestCommitGroupCarry(t *testing.T) {
	l, err := Open(context.Background(), store.Options{InMemory: true, NoGroupCommit: true})
	require.NoError(t, err)
	defer l.Close()
	ctx := context.Background()
	for _, wf := range []string{"a", "b", "c"} {
		create(t, l, "acme", wf, 1)
	}
	payload := func(n int) []byte { return []byte(`"` + strings.Repeat("x", n) + `"`) }
	app := func(wf string, n int) store.Append {
		return store.Append{Tenant: "acme", Workflow: wf, ExpectedVersion: 1,
			Records: []store.NewRecord{{Type: "x", Payload: payload(n)}}, Time: t0}
	}
	// Room for one 400-byte append and one 10-byte append, not for two
	// 400-byte ones.
	txn := l.db.NewTransaction(false)
	a400 := app("a", 400)
	_, writes, err := prepare(context.Background(), txn, &a400)
	txn.Discard()
	require.NoError(t, err)
	size, _ := l.writesSize(writes)
	l.maxBatchSize = 2*size - 1
	g := group(ctx, app("a", 4000), app("a", 400), app("b", 400), app("c", 10))
	carry := l.commitGroup(g, nil)

	require.ErrorIs(t, result(t, g[0]).err, store.ErrTooLarge)
	require.NoError(t, result(t, g[1]).err)
	require.Len(t, carry, 2, "b and c do not fit after a")
	assert.Same(t, g[2], carry[0])
	assert.Same(t, g[3], carry[1])

	carry = l.commitGroup(carry, nil)
	assert.Empty(t, carry)
	require.NoError(t, result(t, g[2]).err)
	require.NoError(t, result(t, g[3]).err)
	for _, wf := range []string{"a", "b", "c"} {
		_, head, err := l.State(ctx, "acme", wf)
		require.NoError(t, err)
		assert.Equal(t, uint64(2), head.Seq, wf)
	}
}
