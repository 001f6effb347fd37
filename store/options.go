package store

import (
	"log/slog"
	"time"
)

// Options configures the opening of a store (backend.Open, badger.Open,
// postgres.Open). The zero value is not usable on its own: set Dir or InMemory.
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
	// see postgres.Open. Its schema must be at this version's (postgres.Migrate).
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

// Default memory sizes.
const (
	DefaultMemTableSize   = 4 << 20
	DefaultBlockCacheSize = 16 << 20
	DefaultIndexCacheSize = 16 << 20
)

// PostgresOptions size the connection pool and the timeouts of a PostgreSQL store. A
// field that is set wins over the store URL's parameter of the same meaning
// (pool_max_conns, statement_timeout, connect_timeout); a field left zero takes the
// URL's, else the default. Every other parameter pgx reads in the URL (pool_min_conns,
// pool_max_conn_lifetime, sslmode, ...; any other is a runtime parameter of the
// session) applies as the URL says.
type PostgresOptions struct {
	// MaxConns bounds the connections the pool opens. Each append holds one for its
	// transaction. Default 4 × GOMAXPROCS, at least 8.
	MaxConns int32
	// StatementTimeout is the server's deadline for each SQL statement
	// (statement_timeout); a statement past it fails and its transaction writes
	// nothing. Default 10s.
	StatementTimeout time.Duration
	// ConnectTimeout bounds making one connection: an unreachable database fails a call
	// after it, with an error matching ErrUnavailable. Default 5s.
	ConnectTimeout time.Duration
}

// Default PostgreSQL timeouts.
const (
	DefaultStatementTimeout = 10 * time.Second
	DefaultConnectTimeout   = 5 * time.Second
)

// DefaultTrimInterval is how often the store hands the pages of its mapped files back
// to the kernel (Memory.TrimInterval).
const DefaultTrimInterval = 2 * time.Second
