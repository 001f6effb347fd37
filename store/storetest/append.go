package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

func testAppendReadState(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	// Payload bytes that a JSON re-encoder would change: spacing, HTML
	// characters, key order, escaped unicode.
	odd := []byte(`{ "z": "<b>&</b>", "a" : [1, 2.50], "u": "\u00e9" }`)
	local := time.Date(2026, 11, 29, 22, 30, 0, 5, time.FixedZone("X", 3600))

	h1, err := l.Append(ctx, store.Append{
		Tenant: "acme", Workflow: "wf-1", Create: true, BumpVersion: true,
		Records: []store.NewRecord{{Type: "request", Payload: odd}, Rec("decision", 2)},
		State:   []byte(`{"status":"RESEARCH"}`),
		Time:    local,
	})
	require.NoError(t, err)
	assert.Equal(t, uint64(2), h1.Seq)
	assert.Equal(t, uint64(1), h1.StateVersion)
	assert.True(t, strings.HasPrefix(h1.Hash, "sha256:"), h1.Hash)
	assert.Len(t, h1.Hash, len("sha256:")+64)

	snap, head, err := l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, h1, head)
	assert.Equal(t, `{"status":"RESEARCH"}`, string(snap))

	// A block: recorded, version unchanged, snapshot kept.
	h2, err := l.Append(ctx, store.Append{
		Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1,
		Records: []store.NewRecord{Rec("block", 3)}, Time: T0,
	})
	require.NoError(t, err)
	assert.Equal(t, store.Head{Seq: 3, StateVersion: 1, Hash: h2.Hash}, h2)
	assert.NotEqual(t, h1.Hash, h2.Hash)
	snap, head, err = l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, h2, head)
	assert.Equal(t, `{"status":"RESEARCH"}`, string(snap))

	// A state change: version bumps, snapshot replaced.
	h3, err := l.Append(ctx, store.Append{
		Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, BumpVersion: true,
		Records: []store.NewRecord{Rec("decision", 4)}, State: []byte(`{"status":"STRATEGY"}`), Time: T0,
	})
	require.NoError(t, err)
	assert.Equal(t, uint64(4), h3.Seq)
	assert.Equal(t, uint64(2), h3.StateVersion)
	snap, _, err = l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, `{"status":"STRATEGY"}`, string(snap))

	all := Records(t, l, "acme", "wf-1", 0)
	require.Len(t, all, 4)
	prev := ""
	for i, r := range all {
		assert.Equal(t, uint64(i+1), r.Seq)
		assert.Equal(t, prev, r.PrevHash, "record %d prev_hash", r.Seq)
		prev = r.Hash
	}
	assert.Equal(t, odd, []byte(all[0].Payload), "payload must be stored byte for byte")
	assert.Equal(t, "request", all[0].Type)
	assert.True(t, all[0].Time.Equal(local))
	assert.Equal(t, time.UTC, all[0].Time.Location())
	assert.Equal(t, h3.Hash, all[3].Hash)

	from3 := Records(t, l, "acme", "wf-1", 3)
	require.Len(t, from3, 2)
	assert.Equal(t, uint64(3), from3[0].Seq)
	assert.Empty(t, Records(t, l, "acme", "wf-1", 9))

	rep, err := l.Verify(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, store.VerifyReport{Tenant: "acme", Workflow: "wf-1", Records: 4, OK: true}, rep)
}

func testAppendErrors(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	before := Create(t, l, "acme", "wf-1", 2)

	tests := []struct {
		name  string
		a     store.Append
		is    error
		stale *store.StaleError
	}{
		{name: "missing workflow", is: store.ErrNotFound,
			a: store.Append{Tenant: "acme", Workflow: "nope", Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "create twice", is: store.ErrExists,
			a: store.Append{Tenant: "acme", Workflow: "wf-1", Create: true, Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "stale version", is: store.ErrStale, stale: &store.StaleError{Expected: 0, Actual: 1},
			a: store.Append{Tenant: "acme", Workflow: "wf-1", BumpVersion: true, Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "future version", is: store.ErrStale, stale: &store.StaleError{Expected: 5, Actual: 1},
			a: store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 5, Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "create at a version", is: store.ErrStale, stale: &store.StaleError{Expected: 3, Actual: 0},
			a: store.Append{Tenant: "acme", Workflow: "new", Create: true, ExpectedVersion: 3, Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "empty tenant", is: store.ErrInvalid,
			a: store.Append{Workflow: "wf-1", Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "empty workflow", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "long workflow", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Workflow: strings.Repeat("w", chain.MaxIDLen+1), Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "long idempotency key", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, IdempotencyKey: strings.Repeat("k", chain.MaxIDLen+1),
				Records: []store.NewRecord{Rec("x", 1)}}},
		{name: "no records", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1}},
		{name: "record without type", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, Records: []store.NewRecord{{Payload: []byte(`{}`)}}}},
		{name: "payload not JSON", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, Records: []store.NewRecord{{Type: "x", Payload: []byte(`{"a":`)}}}},
		{name: "empty payload", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, Records: []store.NewRecord{{Type: "x"}}}},
		{name: "time out of range", is: store.ErrInvalid,
			a: store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, Records: []store.NewRecord{Rec("x", 1)},
				Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := l.Append(ctx, tt.a)
			require.ErrorIs(t, err, tt.is)
			assert.Equal(t, store.Head{}, h)
			assert.True(t, strings.HasPrefix(err.Error(), "store: "), err.Error())
			if tt.stale != nil {
				var se *store.StaleError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, tt.stale, se)
			}
			_, head, err := l.State(ctx, "acme", "wf-1")
			require.NoError(t, err)
			assert.Equal(t, before, head, "a failed append must write nothing")
		})
	}
	_, _, err := l.State(ctx, "acme", "new")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, found, err := l.Owner(ctx, "new")
	require.NoError(t, err)
	assert.False(t, found)
}

// testConcurrentAppendersSameVersion races 64 appenders at one version:
// exactly one wins, the others are stale and see the winner's version.
func testConcurrentAppendersSameVersion(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const n = 64
	before := Create(t, l, "acme", "wf-1", 1)

	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		heads = make([]store.Head, n)
		errs  = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			heads[i], errs[i] = l.Append(ctx, store.Append{
				Tenant: "acme", Workflow: "wf-1", ExpectedVersion: before.StateVersion, BumpVersion: true,
				Records: []store.NewRecord{Rec("decision", i)}, State: MustJSON(t, map[string]int{"winner": i}),
				Time: T0,
			})
		})
	}
	close(start)
	wg.Wait()

	winner := -1
	for i, err := range errs {
		if err == nil {
			assert.Equal(t, -1, winner, "second winner %d", i)
			winner = i
			continue
		}
		var se *store.StaleError
		if assert.ErrorAs(t, err, &se, "appender %d", i) {
			assert.Equal(t, store.StaleError{Expected: 1, Actual: 2}, *se)
		}
	}
	require.NotEqual(t, -1, winner, "no appender won")
	assert.Equal(t, store.Head{Seq: 2, StateVersion: 2, Hash: heads[winner].Hash}, heads[winner])

	snap, head, err := l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, heads[winner], head)
	assert.JSONEq(t, string(MustJSON(t, map[string]int{"winner": winner})), string(snap))
	assert.Len(t, Records(t, l, "acme", "wf-1", 0), 2)
}

// testConcurrentBlocksNeverStale appends from many goroutines without
// bumping the version: a logged rejection never makes another writer
// stale, so every append succeeds and the chain stays contiguous.
func testConcurrentBlocksNeverStale(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const n = 32
	Create(t, l, "acme", "wf-1", 1)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1,
				Records: []store.NewRecord{Rec("block", i), Rec("audit", i)}, Time: T0})
		})
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "appender %d", i)
	}
	_, head, err := l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, uint64(1+2*n), head.Seq)
	assert.Equal(t, uint64(1), head.StateVersion)
	rep, err := l.Verify(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)
	assert.Equal(t, uint64(1+2*n), rep.Records)
}

// testConcurrentWorkflows appends to many workflows at once, each with its
// own version sequence.
func testConcurrentWorkflows(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const workflows, steps = 16, 10
	var wg sync.WaitGroup
	for w := range workflows {
		wg.Go(func() {
			wf := "wf-" + string(rune('a'+w))
			Create(t, l, "acme", wf, 1)
			for v := uint64(1); v <= steps; v++ {
				_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: wf, ExpectedVersion: v, BumpVersion: true,
					Records: []store.NewRecord{Rec("decision", int(v))}, IdempotencyKey: wf + "-" + string(rune('0'+v)), Time: T0})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	n := 0
	require.NoError(t, l.Workflows(ctx, "acme", func(wf string, h store.Head) error {
		n++
		assert.Equal(t, store.Head{Seq: steps + 1, StateVersion: steps + 1, Hash: h.Hash}, h, wf)
		return nil
	}))
	assert.Equal(t, workflows, n)
}

func testIdempotency(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	first := store.Append{
		Tenant: "acme", Workflow: "wf-1", Create: true, BumpVersion: true,
		Records: []store.NewRecord{Rec("request", 1), Rec("decision", 1)}, State: []byte(`{"v":1}`),
		IdempotencyKey: "req-1", RequestDigest: "sha256:aaa", Time: T0,
	}
	_, _, found, err := l.Idempotent(ctx, "acme", "req-1")
	require.NoError(t, err)
	assert.False(t, found)

	h, err := l.Append(ctx, first)
	require.NoError(t, err)

	digest, answer, found, err := l.Idempotent(ctx, "acme", "req-1")
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "sha256:aaa", digest)
	// The answer is the last record of the append, bound by its hash.
	assert.Equal(t, uint64(2), answer.Seq)
	assert.Equal(t, "decision", answer.Type)
	assert.Equal(t, h.Hash, answer.Hash)

	// The same request again, even a creating one, is a duplicate
	// rather than ErrExists, and appends nothing.
	_, err = l.Append(ctx, first)
	var dup *store.DuplicateError
	require.ErrorAs(t, err, &dup)
	assert.ErrorIs(t, err, store.ErrDuplicate)
	assert.Equal(t, answer, dup.Record)

	// A later request reusing the id is a duplicate too, whatever
	// workflow it names.
	next := store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, BumpVersion: true,
		Records: []store.NewRecord{Rec("request", 2)}, IdempotencyKey: "req-1", RequestDigest: "sha256:aaa", Time: T0}
	_, err = l.Append(ctx, next)
	require.ErrorIs(t, err, store.ErrDuplicate)

	next.RequestDigest = "sha256:bbb"
	_, err = l.Append(ctx, next)
	require.ErrorIs(t, err, store.ErrIdempotencyKeyReused)
	assert.NotErrorIs(t, err, store.ErrDuplicate)

	_, head, err := l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, h, head, "duplicates must append nothing")
	assert.Len(t, Records(t, l, "acme", "wf-1", 0), 2)

	// Keys are per tenant: another tenant may use the same id.
	_, err = l.Append(ctx, store.Append{Tenant: "other", Workflow: "wf-2", Create: true,
		Records: []store.NewRecord{Rec("request", 1)}, IdempotencyKey: "req-1", RequestDigest: "sha256:ccc", Time: T0})
	require.NoError(t, err)
	digest, _, _, err = l.Idempotent(ctx, "acme", "req-1")
	require.NoError(t, err)
	assert.Equal(t, "sha256:aaa", digest)
}

// testConcurrentIdempotentRequests sends the same request from many
// goroutines to different workflows: one is recorded, every other caller
// gets the original response.
func testConcurrentIdempotentRequests(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const n = 32
	for i := range n {
		Create(t, l, "acme", "wf-"+string(rune('A'+i)), 1)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-" + string(rune('A'+i)),
				ExpectedVersion: 1, BumpVersion: true, Records: []store.NewRecord{Rec("decision", i)},
				IdempotencyKey: "same", RequestDigest: "d", Time: T0})
		})
	}
	wg.Wait()
	wins := 0
	answers := map[string]bool{}
	for _, err := range errs {
		if err == nil {
			wins++
			continue
		}
		var dup *store.DuplicateError
		require.ErrorAs(t, err, &dup)
		answers[dup.Record.Hash] = true
	}
	assert.Equal(t, 1, wins)
	assert.LessOrEqual(t, len(answers), 1, "every duplicate gets the one recorded answer")
	total := 0
	require.NoError(t, l.Workflows(ctx, "acme", func(_ string, h store.Head) error {
		total += int(h.Seq)
		return nil
	}))
	assert.Equal(t, n+1, total)
}

// testConcurrentCreate races creators of one workflow id from two tenants.
func testConcurrentCreate(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			tenant := "tenant-a"
			if i%2 == 1 {
				tenant = "tenant-b"
			}
			_, errs[i] = l.Append(ctx, store.Append{Tenant: tenant, Workflow: "wf", Create: true,
				Records: []store.NewRecord{Rec("start", i)}, Time: T0})
		})
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			require.ErrorIs(t, err, store.ErrExists)
		}
	}
	assert.Equal(t, 1, wins)
	owner, found, err := l.Owner(ctx, "wf")
	require.NoError(t, err)
	require.True(t, found)
	_, head, err := l.State(ctx, owner, "wf")
	require.NoError(t, err)
	assert.Equal(t, uint64(1), head.Seq)
}

func testAppendCanceledContext(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := l.Append(ctx, store.Append{Tenant: "a", Workflow: "w", Create: true, Records: []store.NewRecord{Rec("x", 1)}})
	require.ErrorIs(t, err, context.Canceled)
	_, _, err = l.State(context.Background(), "a", "w")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func testAppendSnapshotNilAndEmpty(t *testing.T, bs []Backend) {
	l := openFirst(t, bs)
	ctx := context.Background()
	_, err := l.Append(ctx, store.Append{Tenant: "a", Workflow: "w", Create: true, Records: []store.NewRecord{Rec("x", 1)}})
	require.NoError(t, err)
	snap, _, err := l.State(ctx, "a", "w")
	require.NoError(t, err)
	assert.Nil(t, snap, "no snapshot was ever set")

	_, err = l.Append(ctx, store.Append{Tenant: "a", Workflow: "w", Records: []store.NewRecord{Rec("x", 2)}, State: []byte{}})
	require.NoError(t, err)
	snap, head, err := l.State(ctx, "a", "w")
	require.NoError(t, err)
	assert.Empty(t, snap)
	assert.Equal(t, uint64(0), head.StateVersion)
}

func testRecordsCallbackError(t *testing.T, bs []Backend) {
	l := openFirst(t, bs)
	Create(t, l, "a", "w", 5)
	stop := errors.New("enough")
	n := 0
	err := l.Records(context.Background(), "a", "w", 0, func(store.Record) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	assert.Same(t, stop, err)
	assert.Equal(t, 2, n)

	err = l.Workflows(context.Background(), "a", func(string, store.Head) error { return stop })
	assert.Same(t, stop, err)
}
