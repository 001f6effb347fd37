package engine

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/policy"
)

// The benchmarks measure the pieces of one decision on the shipped campaign pack: the
// research brief handoff of testdata/golden/campaign-research-handoff.txtar, decided
// on the workflow its start created. `handoffctl bench` measures whole decisions.

// benchRequest opens the shipped packs in memory, submits every request of the golden
// archive but the last, and returns the engine and the last request.
func benchRequest(b testing.TB) (*Engine, []byte) {
	b.Helper()
	ar, err := txtar.ParseFile("testdata/golden/campaign-research-handoff.txtar")
	require.NoError(b, err)
	var reqs []txtar.File
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".request.json") {
			reqs = append(reqs, f)
		}
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Name < reqs[j].Name })
	clock := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	e, err := Open(context.Background(), Options{InMemory: true, Clock: func() time.Time { return clock }})
	require.NoError(b, err)
	b.Cleanup(func() { e.Close() })
	for _, r := range reqs[:len(reqs)-1] {
		_, err := e.Submit(context.Background(), r.Data)
		require.NoError(b, err)
	}
	return e, reqs[len(reqs)-1].Data
}

// routed returns the last request decoded and routed, with its derived values.
func routed(b *testing.B, e *Engine, body []byte) *request {
	r := e.decider.decodeRequest(body, e.opts.Clock())
	require.NoError(b, e.route(context.Background(), r))
	require.NotNil(b, r.pack)
	require.NotNil(b, r.state)
	r.derive(e.decider.contracts.Scanner)
	return r
}

func BenchmarkDecode(b *testing.B) {
	e, body := benchRequest(b)
	now := e.opts.Clock()
	for b.Loop() {
		e.decider.decodeRequest(body, now)
	}
}

func BenchmarkStateRead(b *testing.B) {
	e, body := benchRequest(b)
	r := e.decider.decodeRequest(body, e.opts.Clock())
	ctx := context.Background()
	for b.Loop() {
		if err := e.route(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	e, body := benchRequest(b)
	r := routed(b, e, body)
	for b.Loop() {
		r.validation = nil
		e.decider.validate(r)
	}
	require.Empty(b, r.validation)
}

func BenchmarkInput(b *testing.B) {
	e, body := benchRequest(b)
	r := routed(b, e, body)
	for b.Loop() {
		if _, err := r.input(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluatePolicy is the prepared query alone on a ready input: raw OPA.
func BenchmarkEvaluatePolicy(b *testing.B) {
	e, body := benchRequest(b)
	r := routed(b, e, body)
	in, err := r.input()
	require.NoError(b, err)
	ctx := context.Background()
	q, err := e.decider.policies.Query(ctx, policy.PackEntrypoint(r.pack.Name))
	require.NoError(b, err)
	for b.Loop() {
		if _, err := q.Eval(ctx, rego.EvalParsedInput(in)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckResult checks a policy result against #PolicyResult and decodes it.
func BenchmarkCheckResult(b *testing.B) {
	e, body := benchRequest(b)
	r := routed(b, e, body)
	in, err := r.input()
	require.NoError(b, err)
	q, err := e.decider.policies.Query(context.Background(), policy.PackEntrypoint(r.pack.Name))
	require.NoError(b, err)
	rs, err := q.Eval(context.Background(), rego.EvalParsedInput(in))
	require.NoError(b, err)
	v := rs[0].Expressions[0].Value
	for b.Loop() {
		if _, err := e.decider.checkResult(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFold copies the state and folds a decision's events into it.
func BenchmarkFold(b *testing.B) {
	e, body := benchRequest(b)
	r := routed(b, e, body)
	res := e.decider.decide(context.Background(), r, evaluation{})
	d, next := res.decision, res.next
	require.NotNil(b, next, "%+v", d.Reasons)
	now := formatTime(r.now)
	for b.Loop() {
		s, err := cloneState(r.state)
		if err != nil {
			b.Fatal(err)
		}
		if err := foldState(s, d, r.pack, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluate is a whole dry-run decision, sequential and from every core.
func BenchmarkEvaluate(b *testing.B) {
	e, body := benchRequest(b)
	ctx := context.Background()
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.Evaluate(ctx, body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := e.Evaluate(ctx, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkNewDecider compiles the shipped bundle, all of it: the cold start of the
// commands that report on the bundle.
func BenchmarkNewDecider(b *testing.B) {
	for b.Loop() {
		_, err := NewDecider(context.Background(), DeciderOptions{})
		require.NoError(b, err)
	}
}

// BenchmarkOpen compiles the shipped bundle and opens an in-memory store: the cold start
// of every handoffctl command.
func BenchmarkOpen(b *testing.B) {
	for b.Loop() {
		e, err := Open(context.Background(), Options{InMemory: true})
		require.NoError(b, err)
		require.NoError(b, e.Close())
	}
}

func BenchmarkScan(b *testing.B) {
	cc, err := contract.Compile(os.DirFS("../contracts"), false)
	require.NoError(b, err)
	_, body := benchRequest(b)
	v, err := decodeJSON(body)
	require.NoError(b, err)
	value := v.(map[string]any)
	for b.Loop() {
		cc.Scanner.Scan(value)
	}
}
