package postgres

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

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// maxPostgresAppend bounds the bytes of one append, as Badger's value log file bounds
// its values: the same request is too large on either backend.
const maxPostgresAppend = chain.ValueLogFileSize

// maxPostgresRetries bounds how often one append is tried again after another writer
// committed first (a key conflict or a serialization failure): each such conflict is
// another append's progress.
const maxPostgresRetries = 200

// Log is a store kept in a PostgreSQL database, shared by any number of processes
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
type Log struct {
	pool     *pgxpool.Pool
	calls    chain.Calls
	readOnly bool
	onCommit func(appends int)
	reach    *reachability
}

// Open connects to the database opts.URL names and checks that its schema is
// at this version's (Migrate applies it). It fails with an error matching
// ErrUnavailable when the database cannot be reached, and with ErrInvalid when the URL
// cannot be read. With opts.ReadOnly every transaction is read-only in the database.
func Open(ctx context.Context, opts store.Options) (*Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, &store.Error{Op: "open", Err: err}
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
	p := &Log{pool: pool, readOnly: opts.ReadOnly, onCommit: opts.OnCommit, reach: reach}
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
		return nil, &store.Error{Op: "open", Err: fmt.Errorf("%w: the database's schema is at version %d, this version needs %d: %s", store.ErrSchema, v, want, hint)}
	}
	return p, nil
}

// poolConfig reads opts into the pool's configuration: opts.Postgres over the URL's
// parameters over the defaults.
func poolConfig(opts store.Options) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(opts.URL)
	if err != nil {
		return nil, chain.Invalid("options: the PostgreSQL URL %s: %v", chain.RedactURL(opts.URL), pgCause(err))
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
		cfg.ConnConfig.ConnectTimeout = store.DefaultConnectTimeout
	}
	params := cfg.ConnConfig.RuntimeParams
	timeout := store.DefaultStatementTimeout
	switch d, ok := pgDuration(params["statement_timeout"]); {
	case po.StatementTimeout > 0:
		timeout = po.StatementTimeout
	case params["statement_timeout"] != "" && !ok:
		return nil, chain.Invalid("options: the PostgreSQL URL %s: statement_timeout %q is not a duration (5000, 5s, 500ms)", chain.RedactURL(opts.URL), params["statement_timeout"])
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
func connectOnce(ctx context.Context, opts store.Options) (*pgx.Conn, error) {
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

// Close waits for the calls in progress, then closes every connection. Calls made
// after Close return ErrClosed. Closing a closed Log does nothing.
func (p *Log) Close() error {
	if p.calls.Close() {
		p.pool.Close()
	}
	return nil
}

// Backup fails with ErrUnsupported: a PostgreSQL store is backed up by the database's
// own tools (pg_dump, base backups and WAL archiving, replicas), and Copy copies it to a
// Badger store.
func (p *Log) Backup(ctx context.Context, w io.Writer) error {
	return &store.Error{Op: "backup", Err: fmt.Errorf("%w: back a PostgreSQL store up with pg_dump, or copy it to a directory with handoffctl copy", store.ErrUnsupported)}
}

// Size is the bytes the store's tables and indexes take in the database; 0 when it
// cannot be read within a second.
func (p *Log) Size() int64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if p.calls.Begin(ctx) != nil {
		return 0
	}
	defer p.calls.End()
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
func (p *Log) begin(ctx context.Context) error { return p.calls.Begin(ctx) }

func (p *Log) end() { p.calls.End() }

// querier is what reads need of a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// readTx runs fn in a read-only REPEATABLE READ transaction: one consistent view for
// reads of several statements.
func (p *Log) readTx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	var cb chain.CallbackError
	if errors.As(err, &cb) {
		return cb.Err
	}
	return pgWrap(op, err)
}
