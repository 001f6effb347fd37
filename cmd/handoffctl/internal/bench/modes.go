package bench

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/backend"
	"github.com/handoff-dev/handoff/store/postgres"
)

// durable runs the durable mode: preload, then the load with Submit. It also times
// opening the store it leaves, without the bundle.
func (r *run) durable(ctx context.Context, dir string, wfs []*workflow, filler [][]byte, state []byte, info *LoadInfo) (ModeResult, error) {
	opts := engine.Options{Dir: dir, EvalTimeout: evalTimeout}
	m, err := r.submit(ctx, opts, Durable, wfs, true, filler, state, info)
	if err != nil {
		return m, err
	}
	t0 := time.Now()
	l, err := backend.Open(ctx, store.Options{Dir: dir})
	if err != nil {
		return m, err
	}
	info.StoreOpenms = ms(time.Since(t0))
	return m, l.Close()
}

// postgres runs the postgres mode: the durable mode's load on a PostgreSQL store, its
// ids tagged for this run, with the database's CPU measured beside the process's.
func (r *run) postgres(ctx context.Context, wfs []*workflow, filler [][]byte, state []byte, info *LoadInfo) (ModeResult, error) {
	if _, err := postgres.Migrate(ctx, store.Options{URL: r.o.StoreURL}); err != nil {
		return ModeResult{}, err
	}
	var tag [4]byte
	_, _ = rand.Read(tag[:])
	for _, w := range wfs {
		w.tag = "-" + hex.EncodeToString(tag[:])
	}
	defer func() {
		for _, w := range wfs {
			w.tag = ""
		}
	}()
	opts := engine.Options{StoreURL: r.o.StoreURL, EvalTimeout: evalTimeout}
	return r.submit(ctx, opts, Postgres, wfs, true, filler, state, info)
}

// submit plays the load with Submit, each workflow's steps in order, Concurrency
// workflows at a time. With preload, the store is first filled as History and
// StoreSize say.
func (r *run) submit(ctx context.Context, opts engine.Options, mode Mode, wfs []*workflow, preload bool, filler [][]byte, state []byte, info *LoadInfo) (res ModeResult, err error) {
	opts.Bundle = &r.b
	t0 := time.Now()
	if preload && (r.o.StoreSize > 0 || r.o.History > 0) {
		if err := r.preload(ctx, opts, wfs, filler, state); err != nil {
			return res, err
		}
		info.PreloadSecs = time.Since(t0).Seconds()
	}
	e, err := engine.Open(ctx, opts)
	if err != nil {
		return res, err
	}
	defer closeEngine(e, &err)
	total := 0
	for _, w := range wfs {
		first := w.first
		w.reset(e)
		if first > 0 { // the preload played the first step
			w.first = first
			w.observe(w.firstBody, w.firstDecision)
		}
		total += w.steps - w.first
	}
	m := r.newMeter(mode, total)
	m.resume()
	parallel(len(wfs), r.o.Concurrency, func(i int) {
		w := wfs[i]
		for j := w.first; j < w.steps && ctx.Err() == nil; j++ {
			body, err := w.body(ctx, j)
			if err != nil {
				// An earlier step got another outcome than its scenario expects (a
				// policy that reads the clock, under a slow machine), so this step
				// refers to something that does not exist: the workflow stops here.
				m.unplayable(w.steps - j)
				return
			}
			t := time.Now()
			d, err := e.Submit(ctx, body)
			m.record(time.Since(t), d != nil && d.Outcome == w.tpl.outcomes[j], err)
			w.observe(body, d)
		}
		// A strings.Replacer over a scenario's ids weighs tens of kilobytes: kept for
		// every copy of a large load it, not the engine, would be the run's memory.
		w.ids = nil
	})
	m.pause()
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return m.result(), m.err()
}

// preload fills the store before the load: StoreSize records over workflows of 100
// records each, and History records in every workflow of the load after its first
// step, which is submitted here.
func (r *run) preload(ctx context.Context, opts engine.Options, wfs []*workflow, filler [][]byte, state []byte) error {
	o := r.o
	now := time.Now().UTC()
	records := func(n, from int) []store.NewRecord {
		out := make([]store.NewRecord, n)
		for i := range out {
			out[i] = store.NewRecord{Type: "decision", Payload: filler[(from+i)%len(filler)]}
		}
		return out
	}
	type head struct {
		tenant, workflow string
		version          uint64
	}
	heads := make([]head, len(wfs))
	if o.History > 0 {
		e, err := engine.Open(ctx, opts)
		if err != nil {
			return err
		}
		for i, w := range wfs {
			w.reset(e)
			body, err := w.body(ctx, 0)
			if err != nil {
				e.Close()
				return err
			}
			d, err := e.Submit(ctx, body)
			if err != nil {
				e.Close()
				return err
			}
			w.first, w.firstBody, w.firstDecision = 1, body, d
			if d.Recorded && d.Kind == "start" && d.Outcome != engine.Block {
				heads[i] = head{d.TenantID, d.WorkflowID, d.StateVersion}
			}
		}
		if err := e.Close(); err != nil {
			return err
		}
	}
	l, err := backend.Open(ctx, store.Options{Dir: opts.Dir, URL: opts.StoreURL})
	if err != nil {
		return err
	}
	const perWorkflow = 100
	pre := (o.StoreSize + perWorkflow - 1) / perWorkflow
	var n atomic.Int64
	r.prog.start("preload", o.StoreSize+o.History*len(wfs), &n)
	var mu sync.Mutex
	var first error
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	parallel(pre, 32, func(i int) {
		k := min(perWorkflow, o.StoreSize-i*perWorkflow)
		_, err := l.Append(ctx, store.Append{Tenant: "bench-preload", Workflow: fmt.Sprintf("preload-%d", i), Create: true, BumpVersion: true,
			Records: records(k, i), State: state, Time: now})
		if err != nil {
			fail(err)
		}
		n.Add(int64(k))
	})
	parallel(len(wfs), 32, func(i int) {
		h := heads[i]
		if h.workflow == "" {
			return
		}
		for done := 0; done < o.History; {
			k := min(500, o.History-done)
			_, err := l.Append(ctx, store.Append{Tenant: h.tenant, Workflow: h.workflow, ExpectedVersion: h.version,
				Records: records(k, done), Time: now})
			if err != nil {
				fail(err)
				return
			}
			done += k
			n.Add(int64(k))
		}
	})
	r.prog.stop()
	if err := l.Close(); err != nil && first == nil {
		first = err
	}
	return first
}

// dry runs the dry run and raw OPA modes. The dry run goes step by step: the requests
// of step j of every workflow are evaluated (measured), then submitted to an in-memory
// store to advance the workflows (not measured). The raw OPA mode evaluates the policy
// inputs built for the first copy of every scenario, in the same mix.
func (r *run) dry(ctx context.Context, wfs []*workflow) (dry, raw ModeResult, err error) {
	e, err := engine.Open(ctx, engine.Options{InMemory: true, Bundle: &r.b, EvalTimeout: evalTimeout})
	if err != nil {
		return dry, raw, err
	}
	defer closeEngine(e, &err)
	total, steps := 0, 0
	for _, w := range wfs {
		total += w.steps
		steps = max(steps, w.steps)
	}
	inputs := map[*template][]policyJob{}
	firsts := map[*template]*workflow{}
	for _, w := range wfs {
		if firsts[w.tpl] == nil {
			firsts[w.tpl] = w
			inputs[w.tpl] = make([]policyJob, len(w.tpl.requests))
		}
	}
	m := r.newMeter(DryRun, total)
	var active []*workflow
	var perr error
	var pmu sync.Mutex
	for j := 0; j < steps && ctx.Err() == nil; j++ {
		active = active[:0]
		var bodies [][]byte
		for _, w := range wfs {
			if j >= w.steps || w.stopped {
				continue
			}
			if j == 0 {
				w.reset(e)
			}
			body, err := w.body(ctx, j)
			if err != nil { // see submit
				w.stopped = true
				m.unplayable(w.steps - j)
				continue
			}
			active = append(active, w)
			bodies = append(bodies, body)
		}
		m.resume()
		parallel(len(active), r.o.Concurrency, func(i int) {
			w := active[i]
			t := time.Now()
			d, err := e.Evaluate(ctx, bodies[i])
			m.record(time.Since(t), d != nil && d.Outcome == w.tpl.outcomes[j], err)
		})
		m.pause()
		parallel(len(active), r.o.Concurrency, func(i int) {
			w := active[i]
			if firsts[w.tpl] == w {
				in, err := newPolicyJob(ctx, e, bodies[i])
				pmu.Lock()
				if err != nil && perr == nil {
					perr = err
				}
				pmu.Unlock()
				inputs[w.tpl][j] = in
			}
			d, err := e.Submit(ctx, bodies[i])
			if err != nil {
				pmu.Lock()
				if perr == nil {
					perr = err
				}
				pmu.Unlock()
			}
			w.observe(bodies[i], d)
		})
	}
	if err := ctx.Err(); err != nil {
		return dry, raw, err
	}
	dry = m.result()
	if err := m.err(); err != nil {
		return dry, raw, err
	}
	if perr != nil {
		return dry, raw, perr
	}
	jobs := make([]policyJob, 0, total)
	for _, w := range wfs {
		for _, in := range inputs[w.tpl][:w.steps] {
			if in.valid() {
				jobs = append(jobs, in)
			}
		}
	}
	m = r.newMeter(RawOPA, len(jobs))
	m.resume()
	parallel(len(jobs), r.o.Concurrency, func(i int) {
		t := time.Now()
		err := jobs[i].eval(ctx, e)
		m.record(time.Since(t), true, err)
	})
	m.pause()
	raw = m.result()
	if err := m.err(); err != nil {
		return dry, raw, err
	}
	r.work, err = policyWork(ctx, e, jobs)
	return dry, raw, err
}

// policyWork counts, untimed, the expressions each job's evaluation enters, summed by
// pack and kind.
func policyWork(ctx context.Context, e *engine.Engine, jobs []policyJob) ([]PolicyWork, error) {
	type key struct{ pack, kind string }
	sums := map[key]*PolicyWork{}
	for _, j := range jobs {
		n, err := j.expressions(ctx, e)
		if err != nil {
			return nil, err
		}
		k := key{j.pack(), j.kind()}
		w := sums[k]
		if w == nil {
			w = &PolicyWork{Pack: k.pack, Kind: k.kind}
			sums[k] = w
		}
		w.Decisions++
		w.ExpressionsPerDecision += float64(n)
	}
	out := make([]PolicyWork, 0, len(sums))
	for _, w := range sums {
		w.ExpressionsPerDecision /= float64(w.Decisions)
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b PolicyWork) int { return cmp.Or(cmp.Compare(a.Pack, b.Pack), cmp.Compare(a.Kind, b.Kind)) })
	return out, nil
}
