package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// DiffOptions bound a search for the requests two bundles decide differently.
type DiffOptions struct {
	// Mutations is how many variants of each step's request are decided besides the
	// request itself (each a field dropped, a number moved, a string emptied, a flag
	// flipped, a list emptied or shortened), spread over the request's fields. Zero
	// decides the scenarios' requests only; negative decides every variant.
	Mutations int
}

// Difference is one way the candidate decides differently from the base: an outcome
// that changes ("outcome allow→block"), a reason code only one of them gives ("+CODE"
// only the candidate's, "-CODE" only the base's), or the agents work goes to ("next").
type Difference struct {
	What string `json:"what"`
	// Requests is how many of the requests decided differ in this way.
	Requests int `json:"requests"`
	// Smallest is the shortest such request (its canonical JSON), with where it came
	// from and both decisions.
	Smallest DiffExample `json:"smallest"`
}

// DiffExample is one request decided differently.
type DiffExample struct {
	Scenario  string          `json:"scenario"`
	Step      int             `json:"step"`
	StepName  string          `json:"step_name"`
	Mutation  string          `json:"mutation,omitempty"`
	Request   json.RawMessage `json:"request"`
	Base      DiffDecision    `json:"base"`
	Candidate DiffDecision    `json:"candidate"`
}

// DiffDecision is what a difference is judged on.
type DiffDecision struct {
	Outcome engine.Outcome `json:"outcome"`
	Codes   []string       `json:"codes"`
	Next    []string       `json:"next"`
}

// DiffReport is the result of a search: what was decided and every difference found.
type DiffReport struct {
	Scenarios   int          `json:"scenarios"`
	Requests    int          `json:"requests"`
	Differences []Difference `json:"differences"`
}

// Differences plays each scenario on an in-memory store with the base bundle and, before
// every step, decides the step's request and its variants with both bundles on the state
// the base reached, at the step's time. No history is needed: the scenarios and what
// their requests could have been stand for traffic. Both deciders see the same input,
// so every difference is the bundles'.
func Differences(ctx context.Context, base, candidate *engine.Decider, scenarios []*Scenario, opts DiffOptions) (*DiffReport, error) {
	rep := &DiffReport{}
	found := map[string]*Difference{}
	for _, sc := range scenarios {
		if err := diffScenario(ctx, base, candidate, sc, opts, rep, found); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		rep.Scenarios++
	}
	for _, d := range found {
		rep.Differences = append(rep.Differences, *d)
	}
	sort.Slice(rep.Differences, func(i, j int) bool { return rep.Differences[i].What < rep.Differences[j].What })
	return rep, nil
}

func diffScenario(ctx context.Context, base, candidate *engine.Decider, sc *Scenario, opts DiffOptions, rep *DiffReport, found map[string]*Difference) error {
	eng, err := engine.Open(ctx, engine.Options{InMemory: true, Decider: base})
	if err != nil {
		return err
	}
	defer eng.Close()
	p := &player{eng: eng}
	var tenant, workflow string
	for i, st := range sc.Steps {
		body, err := p.render(ctx, st.Request)
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, st.Name, err)
		}
		at := st.at
		if at.IsZero() {
			at = time.Now()
		}
		var state *engine.State
		if workflow != "" {
			if state, err = eng.State(ctx, tenant, workflow); err != nil {
				return err
			}
		}
		for _, v := range variants(body, opts.Mutations) {
			in := engine.Input{Request: v.body, State: state, Now: at, DecisionID: "diff"}
			b, _, err := base.Decide(ctx, in)
			if err != nil {
				return fmt.Errorf("step %d (%s): base: %w", i+1, st.Name, err)
			}
			c, _, err := candidate.Decide(ctx, in)
			if err != nil {
				return fmt.Errorf("step %d (%s): candidate: %w", i+1, st.Name, err)
			}
			rep.Requests++
			ex := DiffExample{Scenario: sc.Name, Step: i + 1, StepName: st.Name, Mutation: v.mutation,
				Request: v.body, Base: summarize(b), Candidate: summarize(c)}
			for _, what := range differing(ex.Base, ex.Candidate) {
				d := found[what]
				if d == nil {
					d = &Difference{What: what, Smallest: ex}
					found[what] = d
				}
				d.Requests++
				if len(ex.Request) < len(d.Smallest.Request) {
					d.Smallest = ex
				}
			}
		}
		d, err := eng.SubmitAt(ctx, body, at)
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, st.Name, err)
		}
		p.observe(body, d)
		if workflow == "" && d.Kind == "start" && d.Outcome != engine.Block {
			tenant, workflow = d.TenantID, d.WorkflowID
		}
	}
	return nil
}

func summarize(d *engine.Decision) DiffDecision {
	s := DiffDecision{Outcome: d.Outcome, Codes: uniqueSorted(d.Codes()), Next: []string{}}
	for _, n := range d.Next {
		s.Next = append(s.Next, n.Agent+":"+n.Task)
	}
	sort.Strings(s.Next)
	return s
}

// differing names each way b and c differ.
func differing(b, c DiffDecision) []string {
	var out []string
	if b.Outcome != c.Outcome {
		out = append(out, fmt.Sprintf("outcome %s→%s", b.Outcome, c.Outcome))
	}
	for _, code := range c.Codes {
		if !slices.Contains(b.Codes, code) {
			out = append(out, "+"+code)
		}
	}
	for _, code := range b.Codes {
		if !slices.Contains(c.Codes, code) {
			out = append(out, "-"+code)
		}
	}
	if !slices.Equal(b.Next, c.Next) {
		out = append(out, "next")
	}
	return out
}

// variant is a request to decide: the step's own (no mutation) or one changed field.
type variant struct {
	mutation string
	body     []byte
}

// variants returns the request and up to limit of its mutations (all when limit < 0),
// spread evenly over the list of every mutation so that each part of the request has
// its share. The order is the request's: the same request gives the same variants.
func variants(body []byte, limit int) []variant {
	out := []variant{{body: body}}
	if limit == 0 {
		return out
	}
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return out
	}
	var all []mutation
	walk(doc, nil, "", &all)
	if limit > 0 && len(all) > limit {
		picked := make([]mutation, 0, limit)
		for i := range limit {
			picked = append(picked, all[i*len(all)/limit])
		}
		all = picked
	}
	for _, m := range all {
		var copyDoc any
		_ = json.Unmarshal(body, &copyDoc)
		changed := m.apply(copyDoc)
		b, err := json.Marshal(changed)
		if err != nil {
			continue
		}
		out = append(out, variant{mutation: m.name, body: b})
	}
	return out
}

// mutation changes one value of a decoded request.
type mutation struct {
	name  string
	path  []any // keys (string) and indices (int) from the root
	value any   // the new value; drop removes the key or element instead
	drop  bool
}

// apply changes the value at m.path of doc, a fresh copy, and returns doc.
func (m mutation) apply(doc any) any {
	if len(m.path) == 0 {
		return doc
	}
	parent := doc
	for _, step := range m.path[:len(m.path)-1] {
		switch k := step.(type) {
		case string:
			parent = parent.(map[string]any)[k]
		case int:
			parent = parent.([]any)[k]
		}
	}
	last := m.path[len(m.path)-1]
	switch k := last.(type) {
	case string:
		obj := parent.(map[string]any)
		if m.drop {
			delete(obj, k)
		} else {
			obj[k] = m.value
		}
	case int:
		arr := parent.([]any)
		arr[k] = m.value
	}
	return doc
}

// walk lists the mutations of v, found at the keys and indices at (path in the policies'
// notation), in the order of its fields.
func walk(v any, at []any, path string, out *[]mutation) {
	add := func(name string, value any, drop bool) {
		*out = append(*out, mutation{name: fmt.Sprintf("%s %s", pathOr(path), name), path: slices.Clone(at), value: value, drop: drop})
	}
	if len(at) > 0 {
		if _, key := at[len(at)-1].(string); key {
			add("dropped", nil, true)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(x[k], append(slices.Clone(at), k), join(path, k), out)
		}
	case []any:
		if len(x) > 0 {
			add("emptied", []any{}, false)
			add("without its last element", x[:len(x)-1], false)
		}
		for i, e := range x {
			walk(e, append(slices.Clone(at), i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	case float64:
		add(fmt.Sprintf("%v → %v", x, x+1), x+1, false)
		add(fmt.Sprintf("%v → %v", x, x-1), x-1, false)
		if x != 0 {
			add(fmt.Sprintf("%v → 0", x), 0.0, false)
		}
	case string:
		if x != "" {
			add("emptied", "", false)
		}
	case bool:
		add(fmt.Sprintf("%v → %v", x, !x), !x, false)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func pathOr(path string) string {
	if path == "" {
		return "(request)"
	}
	return strings.TrimPrefix(path, ".")
}
