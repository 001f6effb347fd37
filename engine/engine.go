package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/backend"
	"github.com/handoff-dev/handoff/store/badger"
	"github.com/handoff-dev/handoff/store/postgres"
)

// Options configure an Engine. The zero value works: the shipped packs, a store in
// ./.handoff, a two-second policy deadline and no logging.
type Options struct {
	// Dir is the store directory. Default "./.handoff". Ignored when InMemory or
	// StoreURL is set.
	Dir string
	// StoreURL, when set, keeps the log in the PostgreSQL database it names
	// ("postgres://…"), shared with every other engine process that names it: see
	// postgres.Log. Its schema must be migrated (postgres.Migrate, handoffctl migrate).
	StoreURL string
	// Postgres sizes the connection pool and timeouts of a PostgreSQL store; the zero
	// value takes store.PostgresOptions' defaults.
	Postgres store.PostgresOptions
	// InMemory keeps the log in memory: for tests and dry runs; nothing survives Close.
	InMemory bool
	// Bundle holds the contracts and policies. Default: ShippedBundle().
	Bundle *Bundle
	// EvalTimeout is the deadline of one policy evaluation. Default 2s.
	EvalTimeout time.Duration
	// Limits bound the requests the decoder accepts; a zero field takes its default.
	Limits Limits
	// Clock tells the time given to policies as input.now. Default time.Now. SubmitAt
	// and EvaluateAt decide at a time of the caller's instead.
	Clock func() time.Time
	// Logger receives the engine's and the store's logs. Nil means silent.
	Logger *slog.Logger
	// NoGroupCommit gives every recorded decision its own synchronous transaction
	// instead of batching concurrent ones into one (store.Options.NoGroupCommit).
	// Slower under concurrency; meant for comparisons. Default false.
	NoGroupCommit bool
	// LazyPolicies compiles a pack's contracts and policies when a request first needs
	// them instead of at Open (core's are compiled at Open): for a process that decides
	// a request or two, such as a command line tool. A policy that does not compile then
	// fails the decision that needs it (POLICY_ERROR), and a pack's CUE that does not
	// compile fails its requests with an error, instead of Open. Default false.
	LazyPolicies bool
	// FoldConstants compiles each pack's query a second time, at Open, with the rules
	// that read nothing of the request (the contract tables, the checks that they are
	// complete, indices built from them) evaluated once and replaced by their values:
	// a tenth less policy work per decision, for about 0.3 s more at Open and 20 MB more
	// heap with the shipped packs. Explanations trace the rules as written. Ignored with
	// LazyPolicies. Default false.
	FoldConstants bool
	// Warm names packs to compile in the background from the moment the bundle loads,
	// with LazyPolicies: a process that knows which pack its request is for starts it
	// while the store opens and core compiles, and the request waits only for what is
	// left. Default none.
	Warm []string
	// Decider, when set, is the compiled bundle the engine decides with, shared with
	// whoever else uses it (several stores, tests): Bundle, EvalTimeout, Limits and
	// LazyPolicies are then its own and ignored here. Default: Open compiles the bundle.
	Decider *Decider
	// ReadOnly opens a store no process holds for reading only (an auditor's copy):
	// every read works, Submit fails with an error matching store.ErrReadOnly (no
	// decision is recorded), and Evaluate still decides. Default false.
	ReadOnly bool
	// StoreMemory is the store's memory budget (memtables, block and index caches).
	// The zero value is a small profile for an embedded library: see store.Memory.
	StoreMemory store.Memory
	// Observer receives the time of each stage of every decision and the size of each
	// group commit (see Observer; Engine.SetObserver changes it later). Nil: nobody.
	Observer Observer
	// TracerProvider traces every Submit and Evaluate: a span per decision with a
	// child span per stage (decode, validate, policy, commit), labelled with the
	// request's trace_id, the decision id, pack and outcome. Nil traces nothing.
	TracerProvider trace.TracerProvider
}

// Engine holds a Decider and a store: it decides requests against the bundle and records
// them in the log. All methods are safe for concurrent use.
type Engine struct {
	// live is the bundle deciding now, swapped whole by SwapDecider: a decision loads
	// it once and is made by one bundle from its first stage to its last.
	live   atomic.Pointer[liveBundle]
	opts   Options
	log    store.Log
	logger *slog.Logger
	// slots bounds the decisions being made at once (decode to decision, not the
	// recording): the work is CPU-bound, so more in flight than a few per core only
	// holds more memory.
	slots    chan struct{}
	observer observerSlot
	recorded recordedListeners
	tracer   trace.Tracer
	// states keeps workflows' states decoded, as policies read them.
	states *stateCache
}

var _ handoff.Service = (*Engine)(nil)

// liveBundle is a decider and the ledger that replays, explains and verifies the log
// with its bundle.
type liveBundle struct {
	decider *Decider
	ledger  *governance.Ledger
}

// Decider is the compiled bundle the engine decides with now: its packs, contract
// tables, reason codes, what a workflow waits for and request templates. It is safe for
// concurrent use. A caller that asks it several things about one request keeps the one
// it got: SwapDecider may replace it between two calls.
func (e *Engine) Decider() *Decider { return e.live.Load().decider }

// ledger is the live bundle's ledger.
func (e *Engine) ledger() *governance.Ledger { return e.live.Load().ledger }

// SwapDecider makes d the bundle of every decision that starts from now on and returns
// the one it replaces. Decisions in flight finish with the bundle they started with, and
// record its digest; none is decided by a mix of the two. d must have been compiled for
// this engine's kind of store as any other (NewDecider); it is not closed by the engine.
func (e *Engine) SwapDecider(d *Decider) (old *Decider) {
	return e.live.Swap(&liveBundle{decider: d, ledger: governance.New(e.log, d.p)}).decider
}

// Open compiles the bundle once and opens the store. It fails when a contract or policy
// does not compile, or when another process holds the store
// (errors.Is(err, store.ErrLocked)). A store written by an earlier version is upgraded
// first, once: its idempotency keys are bound to their records and its records indexed
// by decision id.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Dir == "" {
		opts.Dir = ".handoff"
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{opts: opts, logger: logger, slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0)), tracer: noopTracer,
		states: newStateCache(stateCacheSize, stateCacheBytes)}
	if opts.TracerProvider != nil {
		e.tracer = opts.TracerProvider.Tracer("github.com/handoff-dev/handoff/engine")
	}
	e.SetObserver(opts.Observer)
	onCommit := func(appends int) {
		if o := e.observe(); o != nil {
			o.GroupCommit(appends)
		}
	}
	// The store first: a second process on the same directory learns at once that the
	// store is locked, before the bundle is compiled.
	l, err := backend.Open(ctx, store.Options{Dir: opts.Dir, InMemory: opts.InMemory, URL: opts.StoreURL, Postgres: opts.Postgres,
		Logger: opts.Logger, NoGroupCommit: opts.NoGroupCommit, Memory: opts.StoreMemory, OnCommit: onCommit, ReadOnly: opts.ReadOnly})
	if err != nil {
		return nil, err
	}
	dc := opts.Decider
	if dc == nil {
		dc, err = NewDecider(ctx, DeciderOptions{Bundle: opts.Bundle, EvalTimeout: opts.EvalTimeout, Limits: opts.Limits, LazyPolicies: opts.LazyPolicies, FoldConstants: opts.FoldConstants, Warm: opts.Warm})
		if err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	// The bundle first: upgrading an earlier store re-reads its decisions with it.
	e.live.Store(&liveBundle{decider: dc, ledger: governance.New(l, dc.p)})
	if b, ok := l.(*badger.Log); ok {
		if err := e.upgrade(ctx, b); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	e.log = l
	return e, nil
}

// StoreSize is the store's size on disk in bytes, as the storage engine last measured it.
func (e *Engine) StoreSize() int64 { return e.log.Size() }

// Ready reports whether the store can record a decision now: open, reachable, writable
// and at this version's schema (store.Log.Ready). It writes nothing.
func (e *Engine) Ready(ctx context.Context) error { return e.log.Ready(ctx) }

// StorePool returns the state of the store's connection pool; false for a store that
// has none (Badger).
func (e *Engine) StorePool() (postgres.PoolStats, bool) {
	if p, ok := e.log.(*postgres.Log); ok {
		return p.PoolStats(), true
	}
	return postgres.PoolStats{}, false
}

// Close closes the store. Decisions in flight finish first.
func (e *Engine) Close() error {
	return e.log.Close()
}

// Backup writes a full copy of the store to w while the engine runs (store.Log.Backup):
// handoffctl restore, or badger.Restore, makes a store of it again.
func (e *Engine) Backup(ctx context.Context, w io.Writer) error { return e.log.Backup(ctx, w) }
