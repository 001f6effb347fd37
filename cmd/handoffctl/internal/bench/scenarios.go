package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// scenarioFS returns the directory dir, where the scenario files are read from.
func scenarioFS(dir string) (fs.FS, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoScenarioDir, dir)
	case err != nil:
		return nil, fmt.Errorf("bench: scenarios: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("%w: %s is not a directory", ErrNoScenarioDir, dir)
	}
	return os.DirFS(dir), nil
}

// template is one scenario: its requests, the outcome each must get, and the ids
// every copy makes its own.
type template struct {
	pack, name string
	requests   []json.RawMessage
	outcomes   []engine.Outcome
	ids        []string // request, trace and workflow ids written in the requests
}

// templates reads the scenarios of the loaded packs and plays the first once on an
// in-memory engine for records and a state snapshot to preload stores with.
func (r *run) templates(ctx context.Context, fsys fs.FS) (tpls []*template, filler [][]byte, state []byte, err error) {
	files, err := scenario.Files(fsys)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("bench: scenarios: %w", err)
	}
	e, err := engine.Open(ctx, engine.Options{InMemory: true, Bundle: &r.b, EvalTimeout: evalTimeout})
	if err != nil {
		return nil, nil, nil, err
	}
	defer closeEngine(e, &err)
	known := map[string]bool{}
	for _, p := range e.Decider().Packs() {
		known[p.Name] = true
	}
	pack := r.o.Pack
	if pack != "" && !known[pack] {
		return nil, nil, nil, &UnknownPackError{Pack: pack}
	}
	var first *scenario.Scenario
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("bench: %w", err)
		}
		s, err := scenario.Parse(data)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("bench: %s: %w", f, err)
		}
		if !known[s.Pack] || (pack != "" && s.Pack != pack) {
			continue
		}
		if !s.Steps[0].At().IsZero() {
			continue // it sets the time (deadlines, expiries): its copies cannot run at the clock
		}
		t := &template{pack: s.Pack, name: path.Base(f)}
		for _, st := range s.Steps {
			t.requests = append(t.requests, st.Request)
			t.outcomes = append(t.outcomes, st.Expect.Outcome)
		}
		t.ids = requestIDs(t.requests)
		tpls = append(tpls, t)
		if first == nil {
			first = s
		}
	}
	if len(tpls) == 0 {
		return nil, nil, nil, fmt.Errorf("%w in %s", ErrNoScenarios, r.o.ScenarioDir)
	}
	var tenant, workflow string
	err = scenario.Run(ctx, e, first, func(res scenario.Result) {
		if workflow == "" && res.Decision.Recorded && res.Decision.Kind == "start" && res.Decision.Outcome != engine.Block {
			tenant, workflow = res.Decision.TenantID, res.Decision.WorkflowID
			if st, err := e.State(ctx, tenant, workflow); err == nil {
				state, _ = json.Marshal(st)
			}
		}
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if workflow != "" {
		err = e.History(ctx, tenant, workflow, func(ent engine.Entry) error {
			b, err := json.Marshal(ent)
			filler = append(filler, b)
			return err
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if len(filler) == 0 || state == nil {
		return nil, nil, nil, fmt.Errorf("bench: scenario %s recorded no workflow to preload stores with", first.Name)
	}
	return tpls, filler, state, nil
}

// closeEngine closes e, keeping the first error.
func closeEngine(e *engine.Engine, err *error) {
	if cerr := e.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}

// requestIDs collects the request, trace and workflow ids of requests.
func requestIDs(bodies []json.RawMessage) []string {
	seen := map[string]bool{}
	var ids []string
	for _, b := range bodies {
		var obj map[string]any
		if json.Unmarshal(b, &obj) != nil {
			continue
		}
		for _, k := range []string{"request_id", "trace_id", "workflow_id"} {
			if s, ok := obj[k].(string); ok && s != "" && !strings.HasPrefix(s, "${") && !seen[s] {
				seen[s] = true
				ids = append(ids, s)
			}
		}
	}
	return ids
}

// suffixIDs replaces every quoted id with the id and a suffix.
func suffixIDs(ids []string, suffix string) *strings.Replacer {
	var pairs []string
	for _, id := range ids {
		q := strconv.Quote(id)
		pairs = append(pairs, q, strconv.Quote(id+suffix))
	}
	return strings.NewReplacer(pairs...)
}

// workflow is one copy of a template in the load.
type workflow struct {
	tpl     *template
	n       int               // copy number
	steps   int               // how many of the template's steps it plays
	first   int               // the first measured step
	ids     *strings.Replacer // built when the copy is first rendered, dropped when it ends
	player  *scenario.Player
	stopped bool   // a step could not be rendered: the rest is not played
	tag     string // added to every id: the run's, on a store other runs share
	// The first step when a preload played it: observed again on the measured engine.
	firstBody     []byte
	firstDecision *engine.Decision
}

// newLoad makes the workflows of the load.
func newLoad(tpls []*template, o Options) []*workflow {
	var wfs []*workflow
	total := 0
	for i := 0; ; i++ {
		if o.Decisions == 0 && i == o.Workflows || o.Decisions > 0 && total >= o.Decisions {
			break
		}
		t := tpls[i%len(tpls)]
		steps := len(t.requests)
		if o.Decisions > 0 {
			steps = min(steps, o.Decisions-total)
		}
		total += steps
		wfs = append(wfs, &workflow{tpl: t, n: i, steps: steps})
	}
	return wfs
}

// reset starts the workflow afresh on another engine.
func (w *workflow) reset(e scenario.Engine) {
	w.player, w.first, w.stopped = scenario.NewPlayer(e), 0, false
}

// body renders step j: the copy's ids, placeholders replaced from its own state.
func (w *workflow) body(ctx context.Context, j int) ([]byte, error) {
	if w.ids == nil {
		w.ids = suffixIDs(w.tpl.ids, fmt.Sprintf("-b%d%s", w.n, w.tag))
	}
	return w.player.Render(ctx, json.RawMessage(w.ids.Replace(string(w.tpl.requests[j]))))
}

func (w *workflow) observe(body []byte, d *engine.Decision) {
	if d != nil {
		w.player.Observe(body, d)
	}
}
