package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Options configures Open. The zero value is not usable on its own: set Dir
// or InMemory.
type Options struct {
	// Dir is the directory holding the store; it is created if missing.
	// Required unless InMemory is set. One Log at a time may use it.
	Dir string

	// InMemory keeps everything in memory and ignores Dir. Nothing
	// survives Close. Meant for tests.
	InMemory bool

	// Logger receives the storage engine's messages: errors at Error,
	// warnings at Warn and its routine chatter at Debug. Nil discards them.
	Logger *slog.Logger

	// NoGroupCommit gives every Append its own transaction and its own
	// sync to disk. By default (false) one committer gathers the appends
	// that are waiting into a single transaction, which is several times
	// faster under concurrency. The results are the same either way.
	NoGroupCommit bool

	// Memory sizes the storage engine's memory for an embedded library; zero
	// fields take the defaults documented on Memory. Ignored when InMemory
	// is set.
	Memory Memory

	// ReadOnly opens a store no process holds for reading only (an
	// auditor's copy): no lock file is written, every write fails with
	// ErrReadOnly, and other read-only processes may open it too. A store a
	// process holds read-write cannot be opened read-only (ErrLocked), and a
	// store written by an earlier version must be opened read-write once to
	// upgrade it.
	ReadOnly bool

	// URL, when set, names a PostgreSQL database ("postgres://…" or "postgresql://…",
	// in the form pgx reads) and Dir, InMemory, Memory and NoGroupCommit are ignored:
	// see OpenPostgres. Its schema must be at this version's (Migrate).
	URL string

	// Postgres sizes the connection pool and the timeouts of a PostgreSQL store; zero
	// fields take the defaults documented on PostgresOptions.
	Postgres PostgresOptions

	// OnCommit, when set, is called after each transaction the group commit
	// makes durable with the number of appends it held. It is called from
	// the committer and must not block. Nil observes nothing.
	OnCommit func(appends int)
}

// Memory is the storage engine's memory budget. The defaults keep a process
// deciding continuously under 100 MB of resident memory; a host with a
// large store and memory to spare may raise the caches for faster reads of
// cold workflows.
type Memory struct {
	// MemTableSize is the size of one in-memory write table, in bytes. Two
	// are kept: one filling, one being flushed. It also bounds one
	// transaction (a group of appends) to 15% of it. Records and snapshots live
	// in the value log, so a table holds keys and pointers: 4 MiB is some 20,000
	// appends. Default 4 MiB.
	MemTableSize int64
	// BlockCacheSize is the cache of decompressed table blocks, in bytes.
	// Default 16 MiB.
	BlockCacheSize int64
	// IndexCacheSize bounds the table indices and Bloom filters held in
	// memory, in bytes; without a bound they grow with the store. Default
	// 16 MiB.
	IndexCacheSize int64
	// TrimInterval is how often the pages of the mapped value log and table files are
	// handed back to the kernel, so that they do not accumulate in the process's
	// resident memory (Linux only). Default DefaultTrimInterval; negative turns it off.
	TrimInterval time.Duration
}

// valueThreshold is the size from which a value is kept in the value log.
const valueThreshold = 512

// valueLogFileSize is the size of one value log file: the files are mapped in
// memory, and the one being written is what stays resident.
const valueLogFileSize = 64 << 20

// inMemoryTableSize is the memtable of an in-memory store.
const inMemoryTableSize = 16 << 20

// Default memory sizes.
const (
	DefaultMemTableSize   = 4 << 20
	DefaultBlockCacheSize = 16 << 20
	DefaultIndexCacheSize = 16 << 20
)

// embedded applies the memory budget to Badger's options.
func (m Memory) embedded(bo badger.Options) badger.Options {
	if m.MemTableSize <= 0 {
		m.MemTableSize = DefaultMemTableSize
	}
	if m.BlockCacheSize <= 0 {
		m.BlockCacheSize = DefaultBlockCacheSize
	}
	if m.IndexCacheSize <= 0 {
		m.IndexCacheSize = DefaultIndexCacheSize
	}
	// Records and snapshots go to the value log, and the tree keeps their keys
	// and pointers: compactions move pointers, not payloads, and the tree's
	// indices stay small as the log grows.
	return bo.WithValueThreshold(valueThreshold).WithValueLogFileSize(valueLogFileSize).WithMemTableSize(m.MemTableSize).WithNumMemtables(2).
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
type Badger struct {
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

	calls calls

	mu         sync.Mutex
	legacyIdem bool // written by an earlier version: see LegacyIdempotency
	unindexed  bool // written by an earlier version: see Unindexed
}

// Open opens the store in opts.Dir, creating it if needed, or an empty
// in-memory store when opts.InMemory is set. Every write is synced to disk
// before the call that made it returns.
//
// If another process, or another Log in this process, has the directory
// open, Open fails at once with an error matching ErrLocked.
func OpenBadger(ctx context.Context, opts Options) (*Badger, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: "open", Err: err}
	}
	var bo badger.Options
	switch {
	case opts.InMemory:
		// Everything, values too, lives in the tables: a memtable of 16 MiB holds a
		// group of appends up to 2.4 MiB, past the largest request, and costs a fraction
		// of the default 64 MiB to open.
		bo = badger.DefaultOptions("").WithInMemory(true).WithMemTableSize(inMemoryTableSize)
	case opts.Dir == "":
		return nil, invalid("options: Dir is required unless InMemory is set")
	default:
		bo = opts.Memory.embedded(badger.DefaultOptions(opts.Dir))
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
	if err != nil {
		if isLockError(err) {
			return nil, fmt.Errorf("%w: %s is in use by another process", ErrLocked, opts.Dir)
		}
		return nil, openError(err, owner)
	}
	if owner != 0 && opts.Logger != nil {
		opts.Logger.Warn("store: the directory holds the lock file of a running process: a copy of its store made while it wrote may lack or garble the last writes; copy a live store with handoffctl backup",
			"dir", opts.Dir, "pid", owner)
	}
	l := &Badger{
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
	if err := l.checkFormat(); err != nil {
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
func (l *Badger) Close() error {
	if !l.calls.close() {
		return nil
	}
	if l.quit != nil {
		close(l.quit)
		<-l.done
	}
	l.trim.stop()
	return wrap("close", l.db.Close())
}

func (l *Badger) begin(ctx context.Context) error { return l.calls.begin(ctx) }

// Ready reports whether the store takes writes: it is open, and not opened read-only.
func (l *Badger) Ready(ctx context.Context) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if l.readOnly {
		return &Error{Op: "ready", Err: fmt.Errorf("%w: opened read-only", ErrReadOnly)}
	}
	if l.db.IsClosed() {
		return &Error{Op: "ready", Err: ErrClosed}
	}
	return nil
}

func (l *Badger) end() { l.calls.end() }

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
func getHead(txn *badger.Txn, key []byte) (h Head, found bool, err error) {
	v, found, err := getValue(txn, key)
	if err != nil || !found {
		return Head{}, found, err
	}
	h, err = decodeHead(v)
	if err != nil {
		return Head{}, true, fmt.Errorf("head: %w", err)
	}
	return h, true, nil
}

// getAuditHead reads the head of a tenant's audit stream, which names no standing
// record, whichever version wrote it.
func getAuditHead(txn *badger.Txn, tenant string) (Head, bool, error) {
	h, found, err := getHead(txn, auditHeadKey(tenant))
	h.StandingUnknown = false
	return h, found, err
}

// callbackError carries an error returned by a caller's callback through a
// Badger transaction so that it comes back unwrapped.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// unwrapCallback returns the callback's own error if err carries one, else
// err wrapped for op.
func unwrapCallback(op string, err error) error {
	var cb callbackError
	if errors.As(err, &cb) {
		return cb.err
	}
	return wrap(op, err)
}
