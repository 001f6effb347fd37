package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
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

// routed returns the last request decoded, with what the store knows of it.
func routed(b *testing.B, e *Engine, body []byte) pipeline.Input {
	in, _, _, err := e.input(context.Background(), e.Decider(), body, e.opts.Clock(), nil)
	require.NoError(b, err)
	require.NotNil(b, in.State)
	return in
}

func BenchmarkDecode(b *testing.B) {
	e, body := benchRequest(b)
	for b.Loop() {
		e.Decider().p.Decode(body, nil)
	}
}

func BenchmarkStateRead(b *testing.B) {
	e, body := benchRequest(b)
	req := e.Decider().p.Decode(body, nil)
	ctx := context.Background()
	for b.Loop() {
		var in pipeline.Input
		if err := e.route(ctx, e.Decider(), req, &in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	e, body := benchRequest(b)
	in := routed(b, e, body)
	var errs []ValidationError
	for b.Loop() {
		var err error
		if errs, err = e.Decider().p.Validate(in); err != nil {
			b.Fatal(err)
		}
	}
	require.Empty(b, errs)
}

// BenchmarkInput runs every stage before the policy: validate, derive, the input.
func BenchmarkInput(b *testing.B) {
	e, body := benchRequest(b)
	in := routed(b, e, body)
	for b.Loop() {
		if _, _, err := e.Decider().p.PolicyInput(in); err != nil {
			b.Fatal(err)
		}
	}
}

// policyInput is the input document the last request is evaluated on, and its query.
func policyInput(b *testing.B, e *Engine, body []byte) (rego.PreparedEvalQuery, ast.Value) {
	entrypoint, v, err := e.Decider().p.PolicyInput(routed(b, e, body))
	require.NoError(b, err)
	q, err := e.Decider().policies.Query(context.Background(), entrypoint)
	require.NoError(b, err)
	return q, v
}

// BenchmarkEvaluatePolicy is the prepared query alone on a ready input: raw OPA.
func BenchmarkEvaluatePolicy(b *testing.B) {
	e, body := benchRequest(b)
	q, in := policyInput(b, e, body)
	ctx := context.Background()
	for b.Loop() {
		if _, err := q.Eval(ctx, rego.EvalParsedInput(in)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckResult checks a policy result against #PolicyResult and decodes it.
func BenchmarkCheckResult(b *testing.B) {
	e, body := benchRequest(b)
	q, in := policyInput(b, e, body)
	rs, err := q.Eval(context.Background(), rego.EvalParsedInput(in))
	require.NoError(b, err)
	v := rs[0].Expressions[0].Value
	for b.Loop() {
		if _, err := e.Decider().p.CheckResult(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFold copies the state and folds a decision's events into it.
func BenchmarkFold(b *testing.B) {
	e, body := benchRequest(b)
	in := routed(b, e, body)
	res, err := e.Decider().p.Decide(context.Background(), in)
	require.NoError(b, err)
	d, next := res.Decision, res.Next
	require.NotNil(b, next, "%+v", d.Reasons)
	pc, err := e.Decider().contracts.Pack(in.State.Pack)
	require.NoError(b, err)
	now := pipeline.FormatTime(in.Now)
	for b.Loop() {
		s := pipeline.CloneState(in.State)
		if err := pipeline.Fold(s, d, pc, now); err != nil {
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

// BenchmarkSubmit records a start per iteration, each of a workflow of its own: the
// whole durable path, from the body to the store's commit.
func BenchmarkSubmit(b *testing.B) {
	ar, err := txtar.ParseFile("testdata/golden/campaign-start.txtar")
	require.NoError(b, err)
	var start map[string]any
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".request.json") {
			require.NoError(b, json.Unmarshal(f.Data, &start))
			break
		}
	}
	require.NotNil(b, start)
	e, err := Open(context.Background(), Options{InMemory: true})
	require.NoError(b, err)
	b.Cleanup(func() { e.Close() })
	ctx := context.Background()
	n := 0
	for b.Loop() {
		n++
		start["request_id"], start["workflow_id"] = fmt.Sprintf("bench-start-%d", n), fmt.Sprintf("bench-wf-%d", n)
		body, err := json.Marshal(start)
		if err != nil {
			b.Fatal(err)
		}
		d, err := e.Submit(ctx, body)
		if err != nil || d.Outcome == Block {
			b.Fatalf("%v %+v", err, d)
		}
	}
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
	v, err := pipeline.DecodeJSON(body)
	require.NoError(b, err)
	value := v.(map[string]any)
	for b.Loop() {
		cc.Scanner.Scan(value)
	}
}
