package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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

// maxPostgresAppend bounds the bytes of one append, as Badger's value log file bounds
// its values: the same request is too large on either backend.
const maxPostgresAppend = valueLogFileSize

// maxPostgresRetries bounds how often one append is tried again after another writer
// committed first (a key conflict or a serialization failure): each such conflict is
// another append's progress.
const maxPostgresRetries = 200

// Postgres is a store kept in a PostgreSQL database, shared by any number of processes
// on any number of machines. Its records and hashes are Badger's, byte for byte; every
// uniqueness rule (one record per seq of a workflow, one tenant per workflow id, one
// answer per idempotency key, one record per record id) is a key of its tables, so it
// holds in the database whatever the processes do. Appends run at READ COMMITTED and
// take no lock of their own: of two appends that computed the same next record, the
// records' key commits one and fails the other, which reads the head again and gets
// its answer (a *StaleError, a *DuplicateError, ...). The same statements run on
// engines that speak PostgreSQL's protocol at SERIALIZABLE (CockroachDB, YugabyteDB):
// serialization failures are retried the same way.
//
// An append is acknowledged once PostgreSQL has committed it (synchronous_commit as
// the database sets it: on by default). When the connection breaks during the commit,
// the append fails with an error although it may have committed: sent again with the
// same idempotency key, the request gets the recorded answer.
//
// All methods are safe for concurrent use.
type Postgres struct {
	pool     *pgxpool.Pool
	calls    calls
	readOnly bool
	onCommit func(appends int)
	reach    *reachability
}

// OpenPostgres connects to the database opts.URL names and checks that its schema is
// at this version's (Migrate applies it). It fails with an error matching
// ErrUnavailable when the database cannot be reached, and with ErrInvalid when the URL
// cannot be read. With opts.ReadOnly every transaction is read-only in the database.
func OpenPostgres(ctx context.Context, opts Options) (*Postgres, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: "open", Err: err}
	}
	cfg, err := poolConfig(opts)
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reach := &reachability{logger: logger}
	reach.watch(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, pgWrap("open", err)
	}
	p := &Postgres{pool: pool, readOnly: opts.ReadOnly, onCommit: opts.OnCommit, reach: reach}
	v, err := schemaVersion(ctx, pool)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if want := SchemaVersion(); v != want {
		pool.Close()
		hint := "run handoffctl migrate --store URL"
		if v > want {
			hint = "use a newer handoffctl"
		}
		return nil, &Error{Op: "open", Err: fmt.Errorf("%w: the database's schema is at version %d, this version needs %d: %s", ErrSchema, v, want, hint)}
	}
	return p, nil
}

// poolConfig reads opts into the pool's configuration: opts.Postgres over the URL's
// parameters over the defaults.
func poolConfig(opts Options) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(opts.URL)
	if err != nil {
		return nil, invalid("options: the PostgreSQL URL %s: %v", redactURL(opts.URL), pgCause(err))
	}
	// ParseConfig fills in its own defaults: the URL's query tells what it named.
	named := map[string]bool{}
	if u, err := url.Parse(opts.URL); err == nil {
		for k := range u.Query() {
			named[k] = true
		}
	}
	po := opts.Postgres
	switch {
	case po.MaxConns > 0:
		cfg.MaxConns = po.MaxConns
	case !named["pool_max_conns"]:
		cfg.MaxConns = int32(max(8, 4*runtime.GOMAXPROCS(0)))
	}
	switch {
	case po.ConnectTimeout > 0:
		cfg.ConnConfig.ConnectTimeout = po.ConnectTimeout
	case !named["connect_timeout"]:
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	params := cfg.ConnConfig.RuntimeParams
	timeout := DefaultStatementTimeout
	switch d, ok := pgDuration(params["statement_timeout"]); {
	case po.StatementTimeout > 0:
		timeout = po.StatementTimeout
	case params["statement_timeout"] != "" && !ok:
		return nil, invalid("options: the PostgreSQL URL %s: statement_timeout %q is not a duration (5000, 5s, 500ms)", redactURL(opts.URL), params["statement_timeout"])
	case ok:
		timeout = d
	}
	params["statement_timeout"] = strconv.FormatInt(timeout.Milliseconds(), 10)
	if params["idle_in_transaction_session_timeout"] == "" {
		// Twice the statement timeout: a transaction is a few statements, and one left
		// open by a process that stopped must not hold its locks for long.
		params["idle_in_transaction_session_timeout"] = strconv.FormatInt(2*timeout.Milliseconds(), 10)
	}
	if params["application_name"] == "" {
		params["application_name"] = "handoff"
	}
	if opts.ReadOnly {
		params["default_transaction_read_only"] = "on"
	}
	return cfg, nil
}

// pgDuration reads a duration as PostgreSQL writes one in a setting: a number of
// milliseconds, or a number with a unit (us, ms, s, min, h, d). ok is false for anything
// else, "" included.
func pgDuration(s string) (d time.Duration, ok bool) {
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, "ms"
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	n, err := strconv.ParseFloat(num, 64)
	units := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, known := units[unit]
	if err != nil || !known || n < 0 {
		return 0, false
	}
	return time.Duration(n * float64(u)), true
}

// connectOnce makes one connection outside any pool: for Migrate.
func connectOnce(ctx context.Context, opts Options) (*pgx.Conn, error) {
	cfg, err := poolConfig(opts)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return nil, pgWrap("connect", err)
	}
	return conn, nil
}

// redactURL is u without its password, for messages.
func redactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(unreadable URL)"
	}
	return parsed.Redacted()
}

// Close waits for the calls in progress, then closes every connection. Calls made
// after Close return ErrClosed. Closing a closed Postgres does nothing.
func (p *Postgres) Close() error {
	if p.calls.close() {
		p.pool.Close()
	}
	return nil
}

// Backup fails with ErrUnsupported: a PostgreSQL store is backed up by the database's
// own tools (pg_dump, base backups and WAL archiving, replicas), and Copy copies it to a
// Badger store.
func (p *Postgres) Backup(ctx context.Context, w io.Writer) error {
	return &Error{Op: "backup", Err: fmt.Errorf("%w: back a PostgreSQL store up with pg_dump, or copy it to a directory with handoffctl copy", ErrUnsupported)}
}

// Size is the bytes the store's tables and indexes take in the database; 0 when it
// cannot be read within a second.
func (p *Postgres) Size() int64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if p.calls.begin(ctx) != nil {
		return 0
	}
	defer p.calls.end()
	var n int64
	err := p.pool.QueryRow(ctx, `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE c.relkind = 'r' AND c.relname LIKE 'handoff\_%' AND s.nspname = current_schema()`).Scan(&n)
	if err != nil {
		return 0
	}
	return n
}

// begin registers a call in progress; end must follow when it returns nil.
func (p *Postgres) begin(ctx context.Context) error { return p.calls.begin(ctx) }

func (p *Postgres) end() { p.calls.end() }

// querier is what reads need of a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// readTx runs fn in a read-only REPEATABLE READ transaction: one consistent view for
// reads of several statements.
func (p *Postgres) readTx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	var cb callbackError
	if errors.As(err, &cb) {
		return cb.err
	}
	return pgWrap(op, err)
}
