package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/handoff-dev/handoff/store"
)

// Ready reports whether the store can take a decision now: the database answers, takes
// writes (not a hot standby, not a session whose default_transaction_read_only is on),
// and has this version's schema. The error matches ErrUnavailable, ErrReadOnly or
// ErrSchema; its message names no host or role. It writes nothing.
func (p *Log) Ready(ctx context.Context) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	if p.readOnly {
		return &store.Error{Op: "ready", Err: fmt.Errorf("%w: opened read-only", store.ErrReadOnly)}
	}
	var standby, readOnly bool
	var version int
	// transaction_read_only of a statement outside a transaction is the session's
	// default: what an append's transaction would get.
	err := p.pool.QueryRow(ctx, `SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on',
		COALESCE((SELECT max(version) FROM handoff_schema), 0)`).Scan(&standby, &readOnly, &version)
	switch {
	case err != nil:
		return pgWrap("ready", err)
	case standby:
		return &store.Error{Op: "ready", Err: fmt.Errorf("%w: the database is a hot standby: it accepts no writes", store.ErrReadOnly)}
	case readOnly:
		return &store.Error{Op: "ready", Err: fmt.Errorf("%w: the database accepts no writes: default_transaction_read_only is on for this role or database", store.ErrReadOnly)}
	case version != SchemaVersion():
		return &store.Error{Op: "ready", Err: fmt.Errorf("%w: the database's schema is at version %d, this version needs %d", store.ErrSchema, version, SchemaVersion())}
	}
	return nil
}

// PoolStats is the state of a PostgreSQL store's connection pool.
type PoolStats struct {
	AcquiredConns int32 // connections in use
	IdleConns     int32 // connections open and free
	TotalConns    int32 // connections open, in use or not, or being opened
	MaxConns      int32 // the pool's bound

	AcquireCount         int64         // acquires made since Open
	AcquireDuration      time.Duration // their total wait
	EmptyAcquireCount    int64         // acquires that found no free connection and waited
	CanceledAcquireCount int64         // acquires given up because their call ended first
}

// PoolStats returns the state of the connection pool. It is safe for concurrent use,
// also after Close.
func (p *Log) PoolStats() PoolStats {
	s := p.pool.Stat()
	return PoolStats{
		AcquiredConns: s.AcquiredConns(), IdleConns: s.IdleConns(), TotalConns: s.TotalConns(), MaxConns: s.MaxConns(),
		AcquireCount: s.AcquireCount(), AcquireDuration: s.AcquireDuration(),
		EmptyAcquireCount: s.EmptyAcquireCount(), CanceledAcquireCount: s.CanceledAcquireCount(),
	}
}

// unreachableLogEvery is how often a database that stays unreachable is logged again.
const unreachableLogEvery = time.Minute

// reachability logs, through the store's logger, when the database becomes unreachable
// and when it is back: once each, and while it stays down once a minute, whatever the
// number of calls that fail meanwhile.
type reachability struct {
	logger *slog.Logger

	mu       sync.Mutex
	down     bool
	since    time.Time // when it went down
	logged   time.Time // when it was last logged as down
	failures int       // failed connects since then
}

// failed notes a connection that could not be made for a reason of the network or the
// server's state.
func (r *reachability) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.failures++
	switch {
	case !r.down:
		r.down, r.since, r.logged, r.failures = true, now, now, 1
		r.logger.Error("store: the database is unreachable: calls fail until it is back", "cause", pgCause(err).Error(), "detail", err.Error())
	case now.Sub(r.logged) >= unreachableLogEvery:
		r.logged = now
		r.logger.Error("store: the database is still unreachable", "down_for", now.Sub(r.since).Round(time.Second).String(),
			"failed_connects", r.failures, "cause", pgCause(err).Error())
	}
}

// connected notes a connection made.
func (r *reachability) connected() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		r.logger.Info("store: the database is reachable again", "down_for", time.Since(r.since).Round(time.Millisecond).String(), "failed_connects", r.failures)
		r.down = false
	}
}

// watch makes the pool report its connects to r: a lookup or a dial that fails, or a
// server that refuses connections for its state (starting, shutting down), is the
// database unreachable; a connection made is the database back.
func (r *reachability) watch(cfg *pgxpool.Config) {
	lookup, dial := cfg.ConnConfig.LookupFunc, cfg.ConnConfig.DialFunc
	cfg.ConnConfig.LookupFunc = func(ctx context.Context, host string) ([]string, error) {
		addrs, err := lookup(ctx, host)
		if err != nil && ctx.Err() == nil {
			r.failed(err)
		}
		return addrs, err
	}
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil && !errors.Is(err, context.Canceled) {
			r.failed(err)
		}
		return c, err
	}
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		r.connected()
		if after != nil {
			return after(ctx, c)
		}
		return nil
	}
	cfg.ConnConfig.OnPgError = chainPgError(cfg.ConnConfig.OnPgError, func(pe *pgconn.PgError) {
		if unavailable(pe) {
			r.failed(pe)
		}
	})
}

// chainPgError calls next after prev, which decides whether the connection lives on.
func chainPgError(prev pgconn.PgErrorHandler, next func(*pgconn.PgError)) pgconn.PgErrorHandler {
	return func(c *pgconn.PgConn, pe *pgconn.PgError) bool {
		next(pe)
		if prev != nil {
			return prev(c, pe)
		}
		return pe.Severity != "FATAL"
	}
}
