package badger

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func TestOpenOptions(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, store.Options{})
	require.ErrorIs(t, err, store.ErrInvalid)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Open(canceled, store.Options{InMemory: true})
	require.ErrorIs(t, err, context.Canceled)

	// InMemory ignores Dir and touches nothing on disk.
	dir := filepath.Join(t.TempDir(), "unused")
	l, err := Open(ctx, store.Options{InMemory: true, Dir: dir})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	_, err = os.Stat(dir)
	assert.ErrorIs(t, err, os.ErrNotExist)

	// A missing directory is created.
	dir = filepath.Join(t.TempDir(), "a", "b")
	l, err = Open(ctx, store.Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	assert.DirExists(t, dir)
}

func TestOpenLockedInProcess(t *testing.T) {
	l, dir := openDisk(t)
	start := time.Now()
	l2, err := Open(context.Background(), store.Options{Dir: dir})
	elapsed := time.Since(start)
	require.ErrorIs(t, err, store.ErrLocked)
	assert.Nil(t, l2)
	assert.Equal(t, "store: store locked: "+dir+" is in use by another process", err.Error())
	assert.Less(t, elapsed, time.Second, "Open must fail at once")

	// The first Log is unharmed, and the directory is free after Close.
	create(t, l, "a", "w", 1)
	require.NoError(t, l.Close())
	l = reopen(t, dir)
	_, head, err := l.State(context.Background(), "a", "w")
	require.NoError(t, err)
	assert.Equal(t, uint64(1), head.Seq)
}

// lockChildEnv names the directory a child test process opens.
const lockChildEnv = "HANDOFF_STORE_LOCK_CHILD_DIR"

// TestOpenLockedChild is the child half of TestOpenLockedOtherProcess.
func TestOpenLockedChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("run by TestOpenLockedOtherProcess")
	}
	_, err := Open(context.Background(), store.Options{Dir: dir})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Open in a second process: got %v, want ErrLocked", err)
	}
	os.Stdout.WriteString("CHILD:" + err.Error() + "\n")
}

func TestOpenLockedOtherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	_, dir := openDisk(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenLockedChild$", "-test.v")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	require.NoError(t, cmd.Run(), out.String())
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Contains(t, out.String(), "CHILD:store: store locked: "+dir+" is in use by another process")
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	h := create(t, l, "acme", "wf-1", 3)
	_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, BumpVersion: true,
		Records: []store.NewRecord{rec("decision", 4)}, State: []byte(`{"v":2}`),
		IdempotencyKey: "req-9", RequestDigest: "d9", Time: t0})
	require.NoError(t, err)
	audit, err := l.Audit(ctx, "acme", rec("broken", 1), t0)
	require.NoError(t, err)
	before := records(t, l, "acme", "wf-1", 0)
	require.NoError(t, l.Close())

	l = reopen(t, dir)
	snap, head, err := l.State(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.Equal(t, `{"v":2}`, string(snap))
	assert.Equal(t, uint64(4), head.Seq)
	assert.Equal(t, uint64(2), head.StateVersion)
	assert.Equal(t, before, records(t, l, "acme", "wf-1", 0))
	assert.Equal(t, h.Hash, before[2].Hash)

	digest, answer, found, err := l.Idempotent(ctx, "acme", "req-9")
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "d9", digest)
	assert.Equal(t, `{"n":4}`, string(answer.Payload))
	owner, found, err := l.Owner(ctx, "wf-1")
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "acme", owner)

	var audits []store.Record
	require.NoError(t, l.AuditRecords(ctx, "acme", 0, func(r store.Record) error {
		audits = append(audits, r)
		return nil
	}))
	assert.Equal(t, []store.Record{audit}, audits)

	rep, err := l.Verify(ctx, "acme", "wf-1")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)

	// The chain continues where it stopped.
	h5, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 2,
		Records: []store.NewRecord{rec("block", 5)}, Time: t0})
	require.NoError(t, err)
	assert.Equal(t, uint64(5), h5.Seq)
	all := records(t, l, "acme", "wf-1", 5)
	require.Len(t, all, 1)
	assert.Equal(t, head.Hash, all[0].PrevHash)
}

// TestCloseDuringAppends closes the store under load: every append either
// succeeds or reports ErrClosed, and what succeeded survives.
func TestCloseDuringAppends(t *testing.T) {
	for _, b := range []backend{{name: "disk"}, {name: "disk-single", single: true}} {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			l, dir := b.open(t)
			const n = 16
			for i := range n {
				create(t, l, "a", "w"+string(rune('a'+i)), 1)
			}
			var (
				wg sync.WaitGroup
				mu sync.Mutex
				ok = map[string]int{}
			)
			for i := range n {
				wg.Go(func() {
					wf := "w" + string(rune('a'+i))
					for j := 0; ; j++ {
						_, err := l.Append(ctx, store.Append{Tenant: "a", Workflow: wf, ExpectedVersion: 1,
							Records: []store.NewRecord{rec("x", j)}, Time: t0})
						if errors.Is(err, store.ErrClosed) {
							return
						}
						if !assert.NoError(t, err) {
							return
						}
						mu.Lock()
						ok[wf]++
						mu.Unlock()
					}
				})
			}
			time.Sleep(50 * time.Millisecond)
			require.NoError(t, l.Close())
			wg.Wait()

			l = reopen(t, dir)
			for wf, count := range ok {
				_, head, err := l.State(ctx, "a", wf)
				require.NoError(t, err)
				assert.Equal(t, uint64(1+count), head.Seq, wf)
			}
		})
	}
}

// capture is a slog handler that keeps records.
type capture struct {
	mu      sync.Mutex
	records []slog.Record
}

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, r)
	return nil
}
func (c *capture) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *capture) WithGroup(string) slog.Handler      { return c }

func TestLoggerReceivesBadger(t *testing.T) {
	var c capture
	dir := t.TempDir()
	l, err := Open(context.Background(), store.Options{Dir: dir, Logger: slog.New(&c)})
	require.NoError(t, err)
	require.NoError(t, l.Close())

	c.mu.Lock()
	defer c.mu.Unlock()
	require.NotEmpty(t, c.records, "Badger said nothing")
	for _, r := range c.records {
		var component string
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == logKeyComponent {
				component = a.Value.String()
			}
			return true
		})
		assert.Equal(t, "badger", component)
		// Badger's routine messages are chatter.
		assert.LessOrEqual(t, r.Level, slog.LevelWarn, r.Message)
	}
}

func TestBadgerLoggerLevels(t *testing.T) {
	var c capture
	bl := badgerLogger{l: slog.New(&c)}
	bl.Errorf("e %d\n", 1)
	bl.Warningf("w")
	bl.Infof("i")
	bl.Debugf("d")
	require.Len(t, c.records, 4)
	assert.Equal(t, []slog.Level{slog.LevelError, slog.LevelWarn, slog.LevelDebug, slog.LevelDebug},
		[]slog.Level{c.records[0].Level, c.records[1].Level, c.records[2].Level, c.records[3].Level})
	assert.Equal(t, "e 1", c.records[0].Message)

	// A logger that drops Debug never formats the message.
	h := slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelInfo})
	assert.NotPanics(t, func() { badgerLogger{l: slog.New(h)}.Debugf("%v", panicStringer{}) })
}

type panicStringer struct{}

func (panicStringer) String() string { panic("formatted a dropped message") }

func TestErrorWrapping(t *testing.T) {
	e := &store.Error{Op: "append", Err: store.ErrTooLarge}
	assert.Equal(t, "store: append: append too large", e.Error())
	assert.ErrorIs(t, e, store.ErrTooLarge)
}
