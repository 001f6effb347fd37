package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/backend"
	"github.com/handoff-dev/handoff/store/postgres"
)

// benchEnv reads a positive size from the environment, def when unset.
func benchEnv(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// recordedShape is what a store holds of a real workflow, taken from a campaign scenario
// played through the engine: the payloads of its records, and two of its states with the
// decision that left each (one that runs on, one that awaits a person).
type recordedShape struct {
	payloads          [][]byte
	running, awaiting *engine.State
	ranOn, awaited    *engine.Decision
	role              string // a role the awaiting state waits for
}

// playShape plays the campaign happy path through an engine on a Badger store and reads
// back what it recorded.
func playShape(b *testing.B, e *engine.Engine) recordedShape {
	ctx := context.Background()
	sc, err := scenario.Load("../policies_test/handoff/campaign/scenarios/01-happy-path.scenario")
	require.NoError(b, err)
	dir := b.TempDir()
	eng, err := engine.Open(ctx, engine.Options{Dir: dir, Decider: e.Decider()})
	require.NoError(b, err)
	p := scenario.NewPlayer(eng)
	var shape recordedShape
	var tenant, wf string
	for _, step := range sc.Steps {
		body, err := p.Render(ctx, step.Request)
		require.NoError(b, err)
		at := step.At()
		if at.IsZero() {
			at = time.Now()
		}
		d, err := eng.SubmitAt(ctx, body, at)
		require.NoError(b, err)
		p.Observe(body, d)
		if wf == "" && d.Kind == "start" && d.Outcome != engine.Block {
			tenant, wf = d.TenantID, d.WorkflowID
		}
		if wf == "" || d.WorkflowID != wf || d.Outcome == engine.Block {
			continue
		}
		st, err := eng.State(ctx, tenant, wf)
		require.NoError(b, err)
		switch {
		case d.Outcome == engine.AwaitHuman && shape.awaiting == nil:
			shape.awaiting, shape.awaited = st, d
		case d.Outcome == engine.Allow && shape.running == nil:
			shape.running, shape.ranOn = st, d
		}
	}
	require.NoError(b, eng.Close())
	require.NotNil(b, shape.awaiting, "the happy path awaits a person")
	require.NotNil(b, shape.running)
	l, err := backend.Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.NoError(b, err)
	defer l.Close()
	require.NoError(b, l.Records(ctx, tenant, wf, 1, func(r store.Record) error {
		shape.payloads = append(shape.payloads, r.Payload)
		return nil
	}))
	var summary struct {
		Roles []string `json:"r"`
	}
	require.NoError(b, json.Unmarshal(e.RecordedSummary(shape.awaiting, shape.awaited, time.Now()), &summary))
	if len(summary.Roles) > 0 {
		shape.role = summary.Roles[0]
	}
	require.NotEmpty(b, shape.role)
	size := 0
	for _, p := range shape.payloads {
		size += len(p)
	}
	b.Logf("a history's records: %d bytes on average; summaries: %d bytes running, %d awaiting a person", size/len(shape.payloads),
		len(e.RecordedSummary(shape.running, shape.ranOn, time.Now())), len(e.RecordedSummary(shape.awaiting, shape.awaited, time.Now())))
	return shape
}

// fillStore writes n workflows of tenant, each with history records of the shape's sizes
// in one append, its state and the summary the engine gives it: a quarter await a
// person. Workflow i is active i seconds after t0.
func fillStore(b *testing.B, e *engine.Engine, l store.Log, tenant string, n, history int, shape recordedShape) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	next := make(chan int)
	for range cap(errs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				wf := fmt.Sprintf("%s-%06d", tenant, i)
				st, d, standing := *shape.running, shape.ranOn, engine.Allow
				if i%4 == 0 {
					st, d, standing = *shape.awaiting, shape.awaited, engine.AwaitHuman
				}
				st.WorkflowID, st.SubjectID = wf, fmt.Sprintf("subject-%d", i)
				snap, err := json.Marshal(&st)
				if err != nil {
					errs <- err
					return
				}
				at := t0.Add(time.Duration(i) * time.Second)
				a := store.Append{Tenant: tenant, Workflow: wf, Create: true, BumpVersion: true, State: snap, Time: at,
					Standing: string(standing), Summary: e.RecordedSummary(&st, d, at)}
				for r := range history {
					a.Records = append(a.Records, store.NewRecord{Type: "decision", Payload: shape.payloads[r%len(shape.payloads)], ID: fmt.Sprintf("%s-d%d", wf, r)})
				}
				if _, err := l.Append(ctx, a); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range n {
		select {
		case next <- i:
		case err := <-errs:
			b.Fatal(err)
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// BenchmarkFindWorkflowsPage times one page (25 rows) of FindWorkflows over a tenant of
// HANDOFF_BENCH_WORKFLOWS workflows (default 200) whose histories hold 10 decisions, and
// over one whose histories hold HANDOFF_BENCH_HISTORY (default 40): unfiltered, filtered
// by waiting=me, and deep in the cursor chain (past half the workflows). The histories
// are written at the store with the records, states and summaries the engine writes for
// a campaign. On Badger, and on PostgreSQL when HANDOFF_TEST_POSTGRES is set; the short
// and long histories alternate, HANDOFF_BENCH_ROUNDS times (default 1), so that a shared
// machine's drift touches both alike. A page's time should not depend on the histories.
func BenchmarkFindWorkflowsPage(b *testing.B) {
	ctx := context.Background()
	workflows := benchEnv(b, "HANDOFF_BENCH_WORKFLOWS", 200)
	long := benchEnv(b, "HANDOFF_BENCH_HISTORY", 40)
	rounds := benchEnv(b, "HANDOFF_BENCH_ROUNDS", 1)
	dc, err := engine.NewDecider(ctx, engine.DeciderOptions{LazyPolicies: true})
	require.NoError(b, err)
	tmpl, err := engine.Open(ctx, engine.Options{InMemory: true, Decider: dc})
	require.NoError(b, err)
	defer tmpl.Close()
	shape := playShape(b, tmpl)

	type target struct {
		name string
		open func(history int) *engine.Engine
	}
	targets := []target{{"badger", func(history int) *engine.Engine {
		dir := b.TempDir()
		l, err := backend.Open(ctx, store.Options{Dir: dir})
		require.NoError(b, err)
		fillStore(b, tmpl, l, "acme", workflows, history, shape)
		require.NoError(b, l.Close())
		e, err := engine.Open(ctx, engine.Options{Dir: dir, Decider: dc})
		require.NoError(b, err)
		return e
	}}}
	if os.Getenv(pgtest.Env) != "" {
		targets = append(targets, target{"postgres", func(history int) *engine.Engine {
			u := pgtest.URL(b)
			_, err := postgres.Migrate(ctx, store.Options{URL: u})
			require.NoError(b, err)
			l, err := backend.Open(ctx, store.Options{URL: u})
			require.NoError(b, err)
			fillStore(b, tmpl, l, "acme", workflows, history, shape)
			require.NoError(b, l.Close())
			e, err := engine.Open(ctx, engine.Options{StoreURL: u, Decider: dc})
			require.NoError(b, err)
			return e
		}})
	}
	for _, tg := range targets {
		histories := []int{10, long}
		engines := map[int]*engine.Engine{}
		deep := map[int]string{}
		for _, h := range histories {
			start := time.Now()
			e := tg.open(h)
			defer e.Close()
			engines[h] = e
			b.Logf("%s: %d workflows of %d decisions written in %v", tg.name, workflows, h, time.Since(start).Round(time.Millisecond))
			q := engine.WorkflowQuery{Limit: engine.MaxPageSize}
			for seen := 0; seen < workflows/2; {
				page, err := e.FindWorkflows(ctx, "acme", q)
				require.NoError(b, err)
				seen += len(page.Rows)
				if page.Next == "" {
					break
				}
				q.Cursor = page.Next
			}
			deep[h] = q.Cursor
		}
		queries := []struct {
			name string
			q    func(h int) engine.WorkflowQuery
		}{
			{"unfiltered", func(int) engine.WorkflowQuery { return engine.WorkflowQuery{} }},
			{"waiting=me", func(int) engine.WorkflowQuery {
				return engine.WorkflowQuery{Waiting: engine.WaitingMe, Roles: []string{shape.role}}
			}},
			{"deep", func(h int) engine.WorkflowQuery { return engine.WorkflowQuery{Cursor: deep[h]} }},
		}
		for range rounds {
			for _, qc := range queries {
				for _, h := range histories {
					b.Run(fmt.Sprintf("%s/%s/history=%d", tg.name, qc.name, h), func(b *testing.B) {
						e, q := engines[h], qc.q(h)
						for b.Loop() {
							page, err := e.FindWorkflows(ctx, "acme", q)
							if err != nil || len(page.Rows) != engine.DefaultPageSize {
								b.Fatalf("a page of %d rows: %v", len(page.Rows), err)
							}
						}
					})
				}
			}
		}
	}
}
