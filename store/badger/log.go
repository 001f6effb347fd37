package badger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// valueThreshold is the size from which a value is kept in the value log.
const valueThreshold = 512

// inMemoryTableSize is the memtable of an in-memory store.
const inMemoryTableSize = 16 << 20

// embedded applies the memory budget to Badger's options.
func embedded(m store.Memory, bo badger.Options) badger.Options {
	if m.MemTableSize <= 0 {
		m.MemTableSize = store.DefaultMemTableSize
	}
	if m.BlockCacheSize <= 0 {
		m.BlockCacheSize = store.DefaultBlockCacheSize
	}
	if m.IndexCacheSize <= 0 {
		m.IndexCacheSize = store.DefaultIndexCacheSize
	}
	// Records and snapshots go to the value log, and the tree keeps their keys
	// and pointers: compactions move pointers, not payloads, and the tree's
	// indices stay small as the log grows.
	return bo.WithValueThreshold(valueThreshold).WithValueLogFileSize(chain.ValueLogFileSize).WithMemTableSize(m.MemTableSize).WithNumMemtables(2).
		WithBlockCacheSize(m.BlockCacheSize).WithIndexCacheSize(m.IndexCacheSize).
		WithNumCompactors(2).WithMetricsEnabled(false)
}

// Log is an append-only, hash-chained log of workflows, partitioned by
// tenant, with a state snapshot per workflow and a security audit stream per
// tenant.
//
// All methods are safe for concurrent use. Close waits for the calls in
// progress; a callback passed to Records, Workflows, AuditRecords or Chains
// must not call Close.
type Log struct {
	db *badger.DB

	// Group commit. reqs is nil when NoGroupCommit is set.
	reqs chan *appendReq
	quit chan struct{} // closed by Close once no call is in progress
	done chan struct{} // closed when the committer has returned

	// Limits of the database: a transaction's size and count of writes
	// (for sizing groups), the largest value, and the size from which a
	// value goes to the value log and counts as a pointer.
	maxBatchSize   int64
	maxBatchCount  int64
	maxValueSize   int64
	valueThreshold int64

	trim *trimmer // nil in memory or when trimming is off

	onCommit func(appends int) // Options.OnCommit
	readOnly bool              // Options.ReadOnly: every write fails with ErrReadOnly

	calls chain.Calls

	mu         sync.Mutex
	legacyIdem bool // written by an earlier version: see LegacyIdempotency
	unindexed  bool // written by an earlier version: see Unindexed
	unmarked   bool // written by an earlier version: its workflows are not marked unsummarized
}

// Open opens the store in opts.Dir, creating it if needed, or an empty
// in-memory store when opts.InMemory is set. Every write is synced to disk
// before the call that made it returns.
//
// If another process, or another Log in this process, has the directory
// open, Open fails at once with an error matching ErrLocked.
func Open(ctx context.Context, opts store.Options) (*Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, &store.Error{Op: "open", Err: err}
	}
	var bo badger.Options
	switch {
	case opts.InMemory:
		// Everything, values too, lives in the tables: a memtable of 16 MiB holds a
		// group of appends up to 2.4 MiB, past the largest request, and costs a fraction
		// of the default 64 MiB to open.
		bo = badger.DefaultOptions("").WithInMemory(true).WithMemTableSize(inMemoryTableSize)
	case opts.Dir == "":
		return nil, chain.Invalid("options: Dir is required unless InMemory is set")
	default:
		bo = embedded(opts.Memory, badger.DefaultOptions(opts.Dir))
	}
	bo = bo.WithSyncWrites(true).WithVerifyValueChecksum(true).WithLogger(nil).WithReadOnly(opts.ReadOnly && !opts.InMemory)
	if opts.Logger != nil {
		bo = bo.WithLogger(badgerLogger{l: opts.Logger})
	}
	var owner int // a running process whose lock file the directory holds: a copy of its store
	if !opts.InMemory {
		owner, _ = liveLockOwner(opts.Dir)
	}
	db, err := badger.Open(bo)
	if emptyValueLog(err) && !bo.ReadOnly {
		// A process killed between creating its next value log file and writing the
		// file's header left it empty. Badger writes the header while it fails to open
		// such a file, under the directory's lock: the second open finds it whole.
		db, err = badger.Open(bo)
	}
	if err != nil {
		if isLockError(err) {
			return nil, fmt.Errorf("%w: %s is in use by another process", store.ErrLocked, opts.Dir)
		}
		return nil, openError(err, owner)
	}
	if owner != 0 && opts.Logger != nil {
		opts.Logger.Warn("store: the directory holds the lock file of a running process: a copy of its store made while it wrote may lack or garble the last writes; copy a live store with handoffctl backup",
			"dir", opts.Dir, "pid", owner)
	}
	l := &Log{
		db:             db,
		maxBatchSize:   db.MaxBatchSize(),
		maxBatchCount:  db.MaxBatchCount(),
		maxValueSize:   bo.ValueLogFileSize,
		valueThreshold: bo.ValueThreshold,
		onCommit:       opts.OnCommit,
		readOnly:       opts.ReadOnly && !opts.InMemory,
	}
	if opts.InMemory {
		// Without a value log every value lives in the tree.
		l.maxValueSize, l.valueThreshold = bo.ValueThreshold, bo.ValueThreshold+1
	}
	if err := l.openFormat(ctx); err != nil {
		return nil, errors.Join(wrap("open", err), db.Close())
	}
	if !opts.InMemory && !l.readOnly {
		l.trim = startTrimmer(opts.Dir, opts.Memory.TrimInterval)
	}
	if !opts.NoGroupCommit && !l.readOnly {
		l.reqs = make(chan *appendReq, maxGroup)
		l.quit = make(chan struct{})
		l.done = make(chan struct{})
		go l.commitLoop()
	}
	return l, nil
}

// isLockError reports whether err is Badger failing to take its directory
// lock. Badger flattens the cause into the message, so the message is all
// there is to go by.
func isLockError(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock")
}

// Close waits for the calls in progress, then closes the store and releases
// its directory. Calls made after Close return ErrClosed. Closing a closed
// Log does nothing.
func (l *Log) Close() error {
	if !l.calls.Close() {
		return nil
	}
	if l.quit != nil {
		close(l.quit)
		<-l.done
	}
	l.trim.stop()
	return wrap("close", l.db.Close())
}

func (l *Log) begin(ctx context.Context) error { return l.calls.Begin(ctx) }

// Ready reports whether the store takes writes: it is open, and not opened read-only.
func (l *Log) Ready(ctx context.Context) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if l.readOnly {
		return &store.Error{Op: "ready", Err: fmt.Errorf("%w: opened read-only", store.ErrReadOnly)}
	}
	if l.db.IsClosed() {
		return &store.Error{Op: "ready", Err: store.ErrClosed}
	}
	return nil
}

func (l *Log) end() { l.calls.End() }

// getValue reads the value of key in txn; found is false when the key does
// not exist.
func getValue(txn *badger.Txn, key []byte) (value []byte, found bool, err error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	value, err = itemValue(item)
	if err != nil {
		return nil, false, err
	}
	return value, true, nil
}

// getHead reads and decodes a head.
func getHead(txn *badger.Txn, key []byte) (h store.Head, found bool, err error) {
	v, found, err := getValue(txn, key)
	if err != nil || !found {
		return store.Head{}, found, err
	}
	h, err = chain.DecodeHead(v)
	if err != nil {
		return store.Head{}, true, fmt.Errorf("head: %w", err)
	}
	return h, true, nil
}

// getAuditHead reads the head of a tenant's audit stream, which names no standing
// record, whichever version wrote it.
func getAuditHead(txn *badger.Txn, tenant string) (store.Head, bool, error) {
	h, found, err := getHead(txn, auditHeadKey(tenant))
	h.StandingUnknown = false
	return h, found, err
}

// unwrapCallback returns the callback's own error if err carries one, else
// err wrapped for op.
func unwrapCallback(op string, err error) error {
	var cb chain.CallbackError
	if errors.As(err, &cb) {
		return cb.Err
	}
	return wrap(op, err)
}

// emptyValueLog reports whether Open failed on a value log file of zero bytes. Badger
// flattens the error to text, its own sentinel's last.
func emptyValueLog(err error) bool {
	return err != nil && strings.Contains(err.Error(), ".vlog") && strings.HasSuffix(err.Error(), "err: "+z.NewFile.Error())
}
