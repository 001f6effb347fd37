package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/engine/internal/policy"
)

// Decider is a compiled bundle: the contracts' validators, the policies' prepared
// queries and the tables, compiled once. It decides a request on a given workflow state
// and returns the decision and the state it leads to, touching no store: Engine is a
// Decider plus a store, and replay, explain, the decision log and bench decide through
// the same function. A Decider is safe for concurrent use.
type Decider struct {
	p         *pipeline.Pipeline
	contracts *contract.Contracts
	policies  *policy.Policies
	digest    string
	limits    Limits
	timeout   time.Duration
	schemas   sync.Map // pack -> *PackSchemas, built on first use
}

// DeciderOptions configure a Decider. The zero value works: the shipped packs, a
// two-second policy deadline and the default request limits.
type DeciderOptions struct {
	// Bundle holds the contracts and policies. Default: ShippedBundle().
	Bundle *Bundle
	// EvalTimeout is the deadline of one policy evaluation. Default 2s.
	EvalTimeout time.Duration
	// Limits bound the requests the decoder accepts; a zero field takes its default.
	Limits Limits
	// LazyPolicies compiles a pack's contracts and policies when a request first needs
	// them instead of in NewDecider (see Options.LazyPolicies). Default false.
	LazyPolicies bool
	// FoldConstants compiles each pack's query a second time with the rules that read
	// nothing of the request replaced by their values (see Options.FoldConstants).
	FoldConstants bool
	// Warm names packs to compile in the background as soon as NewDecider returns,
	// with LazyPolicies (see Options.Warm). A name the bundle does not have is ignored.
	Warm []string
	// Paced compiles one pack at a time and rests after each as long as it took: a
	// server compiling a new bundle beside the one it decides with takes at most half a
	// core from its decisions, for a compile twice as long. The Decider is whole when
	// NewDecider returns (every pack compiled, or the error of the first that does not).
	// LazyPolicies, FoldConstants and Warm are ignored.
	Paced bool
}

// NewDecider compiles a bundle. It fails when a contract or policy does not compile.
// The contract tables the policies read are the CUE values themselves, put into the
// policies' data: the committed JSON copies are not read (CheckTables compares them).
func NewDecider(ctx context.Context, opts DeciderOptions) (*Decider, error) {
	if opts.Bundle == nil {
		b := ShippedBundle()
		opts.Bundle = &b
	}
	if opts.EvalTimeout <= 0 {
		opts.EvalTimeout = 2 * time.Second
	}
	if opts.Paced {
		return newPacedDecider(ctx, opts)
	}
	b := *opts.Bundle
	cc, err := contract.Compile(b.Contracts, opts.LazyPolicies)
	if err != nil {
		return nil, err
	}
	pc, err := policy.Compile(ctx, b.Policies, contractTables{cc}, opts.LazyPolicies, opts.FoldConstants)
	if err != nil {
		return nil, err
	}
	digest, packDigests, err := b.Digests(cc.PackNames())
	if err != nil {
		return nil, fmt.Errorf("engine: bundle digest: %w", err)
	}
	if opts.LazyPolicies {
		for _, name := range opts.Warm {
			warm(ctx, cc, pc, name)
		}
	}
	p := pipeline.New(cc, pc, digest, opts.Limits.decoder(), opts.EvalTimeout)
	p.SetPackDigests(packDigests)
	return &Decider{p: p, contracts: cc, policies: pc, digest: digest, limits: opts.Limits, timeout: opts.EvalTimeout}, nil
}

// Input is everything one decision depends on.
type Input struct {
	// Request is the request body, as a host would submit it.
	Request []byte
	// State is the workflow's state the request is decided on; nil for a start, which
	// creates the workflow. A request for another tenant's workflow, or for a
	// workflow other than State's, is blocked.
	State *State
	// Now is the decision's time: input.now of the policies and decided_at.
	Now time.Time
	// DecisionID is the decision's id; empty draws a new one (a UUIDv7).
	DecisionID string
}

// Decide decides one request on the state it is given and returns the decision and
// the workflow's state after it (nil when the decision changes nothing). Nothing is
// read or written elsewhere: the same Input gives the same decision (a start without
// a workflow_id is given a new one, as Engine gives it). What a store adds
// (the request_id already recorded, whether a start's workflow id is taken, the race
// for the workflow head) is Engine's. A block is a Decision, not an error: the error
// is non-nil only when no decision could be made.
func (dc *Decider) Decide(ctx context.Context, in Input) (*Decision, *State, error) {
	id := in.DecisionID
	if id == "" {
		id = newDecisionID()
	}
	res, err := dc.p.Decide(ctx, pipeline.Input{Request: dc.p.Decode(in.Request, nil), State: in.State, Now: in.Now, DecisionID: id})
	if err != nil {
		return nil, nil, err
	}
	return res.Decision, res.Next, nil
}

// Validate checks a request against its contract, as Decide does before the policy:
// strict decoding, routing to the pack of its state (or of the pack a start names), the
// request kind's definition and, for an output, the artifact type's. It lists every
// error with its path; none means valid. The policy is not asked.
func (dc *Decider) Validate(body []byte, st *State) ([]ValidationError, error) {
	return dc.p.Validate(pipeline.Input{Request: dc.p.Decode(body, nil), State: st})
}

// newDecisionID draws a decision id: a UUIDv7, so ids sort by time.
func newDecisionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return ""
	}
	return id.String()
}

// Packs lists the bundle's packs. With LazyPolicies it compiles every pack's contracts
// and leaves out one that does not compile (NewDecider without it fails on that pack).
func (dc *Decider) Packs() []PackInfo {
	out := make([]PackInfo, 0, len(dc.contracts.PackNames()))
	for _, name := range dc.contracts.PackNames() {
		p, err := dc.contracts.Pack(name)
		if err != nil {
			continue
		}
		info := PackInfo{Name: name, Entrypoint: policy.PackEntrypoint(name), Initial: p.Initial}
		info.Title, _ = p.Tables["title"].(string)
		info.Version, _ = p.Tables["version"].(string)
		for t := range p.Terminal {
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
func (dc *Decider) BundleDigest() string { return dc.digest }

// PackDigest is the digest of the files a pack's decisions can depend on: its own
// contract and policy directories, core's and every shared file; not the other packs'.
// Two bundles with the same PackDigest decide that pack's requests alike. Empty for a
// pack the bundle does not have.
func (dc *Decider) PackDigest(pack string) string { return dc.p.PackDigest(pack) }

// Tables returns a pack's contract tables as exported from CUE.
func (dc *Decider) Tables(pack string) (map[string]any, bool) {
	p, err := dc.contracts.Pack(pack)
	if err != nil || p == nil {
		return nil, false
	}
	return p.Tables, true
}

// warm compiles a pack's contracts and policies in the background. The compiles are
// once per pack: the request that needs one waits for it, and gets its error.
func warm(ctx context.Context, cc *contract.Contracts, pc *policy.Policies, pack string) {
	if !cc.HasPack(pack) {
		return
	}
	ctx = context.WithoutCancel(ctx)
	go pc.Query(ctx, policy.PackEntrypoint(pack)) //nolint:errcheck // kept by the once
	go cc.Pack(pack)                              //nolint:errcheck // kept by the once
}

// newPacedDecider compiles core as a lazy Decider does, then each pack's contracts and
// policies in turn, resting after each as long as it took.
func newPacedDecider(ctx context.Context, opts DeciderOptions) (*Decider, error) {
	start := time.Now()
	opts.Paced, opts.LazyPolicies, opts.FoldConstants, opts.Warm = false, true, false, nil
	dc, err := NewDecider(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := rest(ctx, time.Since(start)); err != nil {
		return nil, err
	}
	for _, name := range dc.contracts.PackNames() {
		start := time.Now()
		if _, err := dc.contracts.Pack(name); err != nil {
			return nil, err
		}
		if _, err := dc.policies.Query(ctx, policy.PackEntrypoint(name)); err != nil {
			return nil, err
		}
		if err := rest(ctx, time.Since(start)); err != nil {
			return nil, err
		}
	}
	return dc, nil
}

// rest waits d, or until ctx is done.
func rest(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
