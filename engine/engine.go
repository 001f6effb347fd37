package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"time"

	"github.com/handoff-dev/handoff/store"
)

// Options configure an Engine. The zero value works: the shipped packs, a store in
// ./.handoff, a two-second policy deadline and no logging.
type Options struct {
	// Dir is the store directory. Default "./.handoff". Ignored when InMemory is set.
	Dir string
	// InMemory keeps the log in memory: for tests and dry runs; nothing survives Close.
	InMemory bool
	// Bundle holds the contracts and policies. Default: ShippedBundle().
	Bundle *Bundle
	// EvalTimeout is the deadline of one policy evaluation. Default 2s.
	EvalTimeout time.Duration
	// Limits bound the requests the decoder accepts; a zero field takes its default.
	Limits Limits
	// Clock tells the time given to policies as input.now. Default time.Now. A context
	// from WithTime overrides it for one call.
	Clock func() time.Time
	// Logger receives the engine's and the store's logs. Nil means silent.
	Logger *slog.Logger
	// NoGroupCommit gives every recorded decision its own synchronous transaction
	// instead of batching concurrent ones into one (store.Options.NoGroupCommit).
	// Slower under concurrency; meant for comparisons. Default false.
	NoGroupCommit bool
	// LazyPolicies compiles a pack's policies when a request first needs them instead
	// of at Open: for a process that decides a request or two, such as a command line
	// tool. A policy that does not compile then fails the decision that needs it
	// (POLICY_ERROR) instead of Open. Default false.
	LazyPolicies bool
	// StoreMemory is the store's memory budget (memtables, block and index caches).
	// The zero value is a small profile for an embedded library: see store.Memory.
	StoreMemory store.Memory
}

// Engine decides requests against a bundle and records them in the log. All methods are
// safe for concurrent use.
type Engine struct {
	opts      Options
	log       *store.Log
	contracts *compiledContracts
	policies  *compiledPolicies
	digest    string
	logger    *slog.Logger
	// slots bounds the decisions being made at once (decode to decision, not the
	// recording): the work is CPU-bound, so more in flight than a few per core only
	// holds more memory.
	slots chan struct{}
}

// Open compiles the bundle once and opens the store. It fails when a contract or policy
// does not compile, when the committed contract tables are stale, or when another
// process holds the store (errors.Is(err, store.ErrLocked)).
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Dir == "" {
		opts.Dir = ".handoff"
	}
	if opts.Bundle == nil {
		b := ShippedBundle()
		opts.Bundle = &b
	}
	if opts.EvalTimeout <= 0 {
		opts.EvalTimeout = 2 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{opts: opts, logger: logger, slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0))}
	// The store first: a second process on the same directory learns at once that the
	// store is locked, before the bundle is compiled.
	l, err := store.Open(ctx, store.Options{Dir: opts.Dir, InMemory: opts.InMemory, Logger: opts.Logger, NoGroupCommit: opts.NoGroupCommit, Memory: opts.StoreMemory})
	if err != nil {
		return nil, err
	}
	if err := e.load(ctx); err != nil {
		return nil, errors.Join(err, l.Close())
	}
	if l.LegacyIdempotency() {
		if err := e.upgradeIdempotency(ctx, l); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	e.log = l
	return e, nil
}

// load compiles contracts and policies and checks the committed tables are current.
func (e *Engine) load(ctx context.Context) error {
	b := *e.opts.Bundle
	cc, err := compileContracts(b.Contracts)
	if err != nil {
		return err
	}
	tables, err := cc.tableDocuments()
	if err != nil {
		return err
	}
	pc, err := compilePolicies(ctx, b.Policies, tables, cc.packNames(), e.opts.LazyPolicies)
	if err != nil {
		return err
	}
	digest, err := b.digest()
	if err != nil {
		return fmt.Errorf("engine: bundle digest: %w", err)
	}
	e.contracts, e.policies, e.digest = cc, pc, digest
	return nil
}

// Close closes the store. Decisions in flight finish first.
func (e *Engine) Close() error {
	return e.log.Close()
}

// Packs lists the loaded packs.
func (e *Engine) Packs() []PackInfo {
	out := make([]PackInfo, 0, len(e.contracts.packs))
	for _, name := range e.contracts.packNames() {
		p := e.contracts.packs[name]
		info := PackInfo{Name: name, Entrypoint: packEntrypoint(name), Initial: p.initial}
		info.Title, _ = p.tables["title"].(string)
		info.Version, _ = p.tables["version"].(string)
		for t := range p.terminal {
			info.Terminal = append(info.Terminal, t)
		}
		sort.Strings(info.Terminal)
		out = append(out, info)
	}
	return out
}

// PackInfo describes a loaded pack.
type PackInfo struct {
	Name       string   `json:"name"`
	Title      string   `json:"title"`
	Version    string   `json:"version"`
	Entrypoint string   `json:"entrypoint"`
	Initial    string   `json:"initial"`
	Terminal   []string `json:"terminal"`
}

// BundleDigest is the digest every decision records.
func (e *Engine) BundleDigest() string { return e.digest }

// Tables returns a pack's contract tables as exported from CUE.
func (e *Engine) Tables(pack string) (map[string]any, bool) {
	p, ok := e.contracts.packs[pack]
	if !ok {
		return nil, false
	}
	return p.tables, true
}

func (cc *compiledContracts) packNames() []string {
	names := make([]string, 0, len(cc.packs))
	for n := range cc.packs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
