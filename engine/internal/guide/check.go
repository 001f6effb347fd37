package guide

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// checker puts the steps Waiting derives to the policy: each becomes a request, built
// from the pack's template and the step, decided on the workflow's state as a dry run.
// The request's values fall in two sets: those the step gives (the kind, the actor's
// type, an agent's id and a person's role, targets, output type and version, the cited
// versions, stage, task, conflict, effect) and those it leaves to fill (content, free
// text, verdicts and decisions, a person's or the host's id, trace_id). A reason about
// a value left to fill says nothing of the step; a reason with no path, or about a
// value the step gives (or a field holding one), is the policy's word on the step
// itself.
type checker struct {
	pipe *pipeline.Pipeline
	g    *deriver
	st   *State
	at   time.Time
	// rootCauses are the codes that say why a request is refused rather than what
	// follows from it: the core's guardrails.root_causes and the pack's root_causes.
	rootCauses map[string]bool
	// decided are the dry runs made, by time and request: a step is put to the policy
	// once however often it is asked about.
	decided map[string]*Decision
	// hosted are handoffs the policy refuses from their agent but takes from the host
	// on its behalf.
	hosted []Step
}

// probeID is the request_id and decision id of every dry run.
const probeID = "waiting-check"

// dueHorizons are how far ahead a refused step is tried again: a step refused now and
// accepted at one of them is not due yet (NotBefore).
var dueHorizons = []time.Duration{time.Minute, time.Hour, 24 * time.Hour}

// party checks every step of p: it keeps those the policy takes (with its word on
// them), those not due yet (NotBefore), and moves the others to p.Refused. A handoff
// refused for its target, its sender or what it cites is tried with the agent's other
// targets, from the host on the agent's behalf, and citing one more of the versions it
// may cite: the first the policy takes is offered instead (to the host's party when the
// host sends it). A step of an agent off stage (not acting in the status) that waits
// for the agent's own outputs (After) is refused rather than kept.
func (c *checker) party(ctx context.Context, p *Party, offStage bool) error {
	var kept []Step
	if p.Type == "system" {
		kept = append(kept, c.hosted...)
	}
	seen := map[string]bool{}
	keep := func(typ string, s Step) {
		key := typ + "\x00" + stepKey(s)
		if seen[key] {
			return
		}
		seen[key] = true
		if typ == "system" && p.Type == "agent" {
			c.hosted = append(c.hosted, s)
		} else {
			kept = append(kept, s)
		}
	}
	for _, s := range p.Requests {
		redo := c.g.redo(p.ID, s)
		switch {
		case len(s.After) > 0 && !offStage:
			keep(p.Type, s) // after the party's own outputs: nothing to put to the policy yet
			continue
		case len(s.After) > 0 || !cited(s.Cite):
			p.Refused = append(p.Refused, s) // a version it must cite is not recorded
			continue
		}
		// A step refused for what it is, whatever its values (a root cause about who
		// sends it, to whom, what it cites; or a task done again the policy does not
		// plainly take), is not filled in: it is tried as the variants it may be
		// (another target, from the host, citing more).
		if out, reasons, err := c.check(ctx, p.Type, p.ID, s); err != nil {
			return err
		} else if refuses(out, reasons) && aboutShape(blocking(reasons)) && (redo || c.rootCause(blocking(reasons))) {
			typ, alt, ok, err := c.rescue(ctx, p, s, blocking(reasons))
			if err != nil {
				return err
			}
			if ok && !(redo && len(alt.Reasons) > 0) {
				source := p.ID
				if alt.Source != "" {
					source = alt.Source
				}
				if err := c.fill(ctx, typ, source, &alt); err != nil {
					return err
				}
				keep(typ, alt)
				continue
			}
			s.Outcome, s.Reasons = answer(out, reasons)
			p.Refused = append(p.Refused, s)
			continue
		}
		if err := c.fill(ctx, p.Type, p.ID, &s); err != nil {
			return err
		}
		if len(s.Answers) > 1 {
			taken, err := c.answers(ctx, p, s)
			if err != nil {
				return err
			}
			if len(taken) > 0 && len(taken) < len(s.Answers) {
				// An answer refused now may be taken later (a retry not due yet): a step
				// of its own that says when.
				for _, a := range s.Answers {
					if slices.Contains(taken, a) {
						continue
					}
					v := s
					v.Answers = []string{a}
					due, err := c.due(ctx, p, v)
					if err != nil {
						return err
					}
					if !due.IsZero() {
						_, rs, err := c.check(ctx, p.Type, p.ID, v)
						if err != nil {
							return err
						}
						v.Outcome, v.Reasons, v.NotBefore = Block, rs, due.UTC().Format(time.RFC3339Nano)
						keep(p.Type, v)
					}
				}
			}
			if len(taken) > 0 && taken[0] != s.Answers[0] {
				// The values that go with the first answer taken.
				s.Answers = taken
				if err := c.fill(ctx, p.Type, p.ID, &s); err != nil {
					return err
				}
			} else if len(taken) > 0 {
				s.Answers = taken
			}
		}
		out, reasons, err := c.check(ctx, p.Type, p.ID, s)
		if err != nil {
			return err
		}
		s.Outcome, s.Reasons = answer(out, reasons)
		if !refuses(out, reasons) {
			if redo && len(reasons) > 0 {
				p.Refused = append(p.Refused, s) // a task done again only when the policy plainly takes it
				continue
			}
			keep(p.Type, s)
			continue
		}
		typ, alt, ok, err := c.rescue(ctx, p, s, blocking(reasons))
		if err != nil {
			return err
		}
		if ok && !(redo && len(alt.Reasons) > 0) {
			keep(typ, alt)
			continue
		}
		if aboutShape(blocking(reasons)) {
			p.Refused = append(p.Refused, s) // what the step is, not when, is refused
			continue
		}
		due, err := c.due(ctx, p, s)
		if err != nil {
			return err
		}
		if !due.IsZero() {
			s.NotBefore = due.UTC().Format(time.RFC3339Nano)
			keep(p.Type, s)
			continue
		}
		p.Refused = append(p.Refused, s)
	}
	if kept == nil {
		kept = []Step{}
	}
	p.Requests = kept
	return nil
}

// answers are the answers of a step (an outcome's results, a review's verdicts, an
// approval's decisions) the policy takes now.
func (c *checker) answers(ctx context.Context, p *Party, s Step) ([]string, error) {
	var taken []string
	for _, a := range s.Answers {
		v := s
		v.Answers = []string{a}
		out, reasons, err := c.check(ctx, p.Type, p.ID, v)
		if err != nil {
			return nil, err
		}
		if !refuses(out, reasons) {
			taken = append(taken, a)
		}
	}
	return taken, nil
}

// rootCause says whether a root cause is among the reasons.
func (c *checker) rootCause(reasons []Reason) bool {
	return slices.ContainsFunc(reasons, func(r Reason) bool { return c.rootCauses[r.Code] })
}

// answer is what a step records of a dry run: the outcome and the reasons about the
// step, or nothing when there are none.
func answer(out Outcome, reasons []Reason) (Outcome, []Reason) {
	if len(reasons) == 0 {
		return "", nil
	}
	if out == Block && !refuses(out, reasons) {
		// Blocked for the values left to fill alone: the step's own reasons say what it
		// leads to (a deadline passed escalates).
		for _, r := range reasons {
			if r.Outcome != "" && r.Outcome != Block {
				return r.Outcome, reasons
			}
		}
		return "", nil
	}
	return out, reasons
}

// stepKey names a step by what it sends.
func stepKey(s Step) string {
	return strings.Join(append([]string{s.Kind, s.Source, s.Target, s.Output, s.TaskID, s.Task, s.Agent, s.Stage, s.ConflictID, s.EffectID, s.NotBefore}, s.Answers...), "\x00")
}

// rescue tries the variants of a step the policy refuses: for a handoff, the other
// agents its source hands work to when a reason is about the target, the host sending
// it on the agent's behalf when one is about the sender, one more cited version when
// one is about the inputs; for an approval that misses a version, one more of those
// awaiting a decision. It returns the sender type and the first variant taken.
func (c *checker) rescue(ctx context.Context, p *Party, s Step, reasons []Reason) (string, Step, bool, error) {
	if s.Kind == "approval" && about(reasons, "artifacts") {
		// A decision names every version awaiting it: one more of those awaiting one.
		for _, typ := range sortedNames(c.st.Artifacts) {
			v := c.g.latest(typ)
			if v == nil || v.Status != "under_review" || slices.ContainsFunc(s.Cite, func(x Citation) bool { return x.Type == typ }) {
				continue
			}
			t := s
			t.Cite = append(slices.Clone(s.Cite), c.g.citeVersion(typ, v.Ref.Version))
			out, rs, err := c.check(ctx, p.Type, p.ID, t)
			if err != nil {
				return "", Step{}, false, err
			}
			if !refuses(out, rs) {
				t.Outcome, t.Reasons = answer(out, rs)
				return p.Type, t, true, nil
			}
		}
	}
	if s.Kind != "handoff" {
		return "", Step{}, false, nil
	}
	for _, r := range reasons {
		if !about([]Reason{r}, "target_agent") && !about([]Reason{r}, "actor") && !about([]Reason{r}, "input_artifacts") {
			return "", Step{}, false, nil // no variant changes what else is refused
		}
	}
	source := p.ID
	if s.Source != "" {
		source = s.Source
	}
	targets := []string{s.Target}
	if about(reasons, "target_agent") {
		for _, t := range c.g.t.Agents[source].HandsTo {
			if t != s.Target {
				targets = append(targets, t)
			}
		}
	}
	senders := []string{p.Type}
	if p.Type == "agent" && about(reasons, "actor") {
		senders = append(senders, "system")
	}
	cites := [][]Citation{s.Cite}
	if about(reasons, "input_artifacts") {
		cites = append(cites, c.moreCitations(s)...)
	}
	for _, target := range targets {
		for _, typ := range senders {
			for i, cite := range cites {
				if target == s.Target && typ == p.Type && i == 0 {
					continue // the step as it was
				}
				v := s
				v.Target, v.Cite = target, cite
				v.MayCite = slices.DeleteFunc(slices.Clone(s.MayCite), func(m Citation) bool { return slices.Contains(cite, m) })
				v.Limitations = c.g.limitations(cite)
				if typ == "system" {
					v.Source = source
				}
				out, reasons, err := c.check(ctx, typ, source, v)
				if err != nil {
					return "", Step{}, false, err
				}
				if !refuses(out, reasons) {
					v.Outcome, v.Reasons = answer(out, reasons)
					return typ, v, true, nil
				}
			}
		}
	}
	return "", Step{}, false, nil
}

// shapeFields are the fields that say what a step is and who sends it: a refusal about
// one of them does not pass with time.
var shapeFields = []string{"actor", "source_agent", "target_agent", "task_type", "task_id", "output.type", "output.id",
	"output.version", "output.supersedes", "stage", "input_artifacts", "artifacts", "limitations"}

// aboutShape says whether a reason concerns what a step is or who sends it.
func aboutShape(reasons []Reason) bool {
	for _, f := range shapeFields {
		if about(reasons, f) {
			return true
		}
	}
	return false
}

// about says whether a reason concerns field (or a field inside it).
func about(reasons []Reason, field string) bool {
	for _, r := range reasons {
		if r.Path == field || strings.HasPrefix(r.Path, field+".") || strings.HasPrefix(r.Path, field+"[") {
			return true
		}
	}
	return false
}

// moreCitations are a handoff's citations with one more version: one it may cite, then
// the latest of a recorded type it names nowhere (the record that returned the work),
// the latest recorded first.
func (c *checker) moreCitations(s Step) [][]Citation {
	may := slices.Clone(s.MayCite)
	for _, typ := range sortedNames(c.st.Artifacts) {
		named := slices.ContainsFunc(append(slices.Clone(s.Cite), s.MayCite...), func(x Citation) bool { return x.Type == typ })
		if h := c.st.Artifacts[typ]; !named && h != nil && h.Latest > 0 {
			may = append(may, c.g.citeVersion(typ, h.Latest))
		}
	}
	recorded := func(x Citation) string {
		if x.Ref == nil {
			return ""
		}
		if v := c.st.Artifacts[x.Type].Versions[strconv.Itoa(x.Ref.Version)]; v != nil {
			return v.RecordedAt
		}
		return ""
	}
	n := len(s.MayCite)
	sort.SliceStable(may[:n], func(i, j int) bool { return recorded(may[i]) > recorded(may[j]) })
	sort.SliceStable(may[n:], func(i, j int) bool { return recorded(may[n+i]) > recorded(may[n+j]) })
	var out [][]Citation
	for _, m := range may {
		if m.Ref != nil {
			out = append(out, append(slices.Clone(s.Cite), m))
		}
	}
	return out
}

// refuses says whether a dry run's answer refuses the step: it blocks, for a reason
// about the step that blocks.
func refuses(out Outcome, reasons []Reason) bool {
	return out == Block && len(blocking(reasons)) > 0
}

// blocking are the reasons whose own outcome is block.
func blocking(reasons []Reason) []Reason {
	var out []Reason
	for _, r := range reasons {
		if r.Outcome == Block || r.Outcome == "" {
			out = append(out, r)
		}
	}
	return out
}

// cited says whether every citation names a recorded version.
func cited(cs []Citation) bool {
	for _, c := range cs {
		if c.Ref == nil {
			return false
		}
	}
	return true
}

// due is the earliest time, within a day, at which the policy takes a step it refuses
// now, to the second; zero when it takes it at none of dueHorizons.
func (c *checker) due(ctx context.Context, p *Party, s Step) (time.Time, error) {
	// Later, the policy must take the step: a step "taken" only because a deadline
	// passed and the workflow escalates or fails is not due.
	refused := func(at time.Time) (bool, error) {
		cc := *c
		cc.at = at
		out, reasons, err := cc.check(ctx, p.Type, p.ID, s)
		stops := out == Fail || slices.ContainsFunc(reasons, func(r Reason) bool { return r.Outcome == Fail || r.Outcome == AwaitHuman })
		return refuses(out, reasons) || stops, err
	}
	lo := c.at
	for _, h := range dueHorizons {
		hi := c.at.Add(h)
		no, err := refused(hi)
		if err != nil || no {
			if err != nil {
				return time.Time{}, err
			}
			lo = hi
			continue
		}
		for hi.Sub(lo) > time.Second {
			mid := lo.Add(hi.Sub(lo) / 2)
			no, err := refused(mid)
			if err != nil {
				return time.Time{}, err
			}
			if no {
				lo = mid
			} else {
				hi = mid
			}
		}
		return hi.Truncate(time.Second).Add(time.Second), nil
	}
	return time.Time{}, nil
}

// check decides the request a step amounts to, sent by an actor of type typ (an agent
// id, a role, or the host), and returns the outcome and the reasons about the step.
func (c *checker) check(ctx context.Context, typ, id string, s Step) (Outcome, []Reason, error) {
	out, reasons, _, err := c.decide(ctx, typ, id, s)
	return out, reasons, err
}

// decide is check with the reasons about values left to fill (open) too.
func (c *checker) decide(ctx context.Context, typ, id string, s Step) (Outcome, []Reason, []Reason, error) {
	body, given, err := c.request(typ, id, s)
	if err != nil {
		return "", nil, nil, err
	}
	key := c.at.String() + "\x00" + string(body)
	d, ok := c.decided[key]
	if !ok {
		res, err := c.pipe.Decide(ctx, pipeline.Input{Request: c.pipe.Decode(body, nil), State: c.st, Now: c.at, DecisionID: probeID})
		if err != nil {
			return "", nil, nil, err
		}
		d = res.Decision
		if c.decided == nil {
			c.decided = map[string]*Decision{}
		}
		c.decided[key] = d
	}
	var reasons, open []Reason
	for _, r := range d.Reasons {
		// The host's service id is the deployment's: a reason about the host's actor as
		// a whole may be about that id.
		if typ == "system" && r.Path == "actor" || !concerns(r.Path, given) {
			open = append(open, r)
			continue
		}
		reasons = append(reasons, r)
	}
	if len(blocking(open)) > 0 {
		// A reason without a path that is not a root cause may follow from the others (a
		// security audit of the request): with values left to fill refused, it says
		// nothing of the step.
		reasons = slices.DeleteFunc(reasons, func(r Reason) bool {
			return r.Path == "" && (r.Outcome == Block || r.Outcome == "") && !c.rootCauses[r.Code]
		})
	}
	return d.Outcome, reasons, open, nil
}

// fill chooses values for fields the step leaves to fill, into s.Fill: the value every
// recorded version names alike (the workflow's trace, its subject under the pack's name
// for it), and, for a value the policy refuses, one of the same kind it takes (a
// failure's retry type that goes with its class, a handoff's type, an optional field
// the step needs with its count).
func (c *checker) fill(ctx context.Context, typ, id string, s *Step) error {
	tpl, err := TemplateFor(c.pipe.Contracts(), c.st.Pack, s.Kind, c.templateOptions(id, *s))
	if err != nil {
		return err
	}
	var fields map[string]any
	if err := json.Unmarshal(tpl.JSON(), &fields); err != nil {
		return err
	}
	_, given, err := c.request(typ, id, *s)
	if err != nil {
		return err
	}
	for k, v := range c.invariants() {
		// Not a choice (an enumeration's value, the answer): an id or a name.
		if _, enum := tpl.enums[k]; enum || k == answerField[s.Kind] {
			continue
		}
		if tv, ok := fields[k]; ok && tv != v && !slices.Contains(given, k) && k != "request_id" {
			if _, isString := tv.(string); isString {
				if s.Fill == nil {
					s.Fill = map[string]any{}
				}
				s.Fill[k] = v
			}
		}
	}
	// Each round clears the values of one path the policy refuses, if a value of the
	// field's kind clears it: an optional field added with the template's skeleton, an
	// enumeration's other value, the other boolean, a small count.
	tried := map[string]bool{}
	for range 12 {
		_, _, open, err := c.decide(ctx, typ, id, *s)
		if err != nil {
			return err
		}
		body, _, err := c.request(typ, id, *s)
		if err != nil {
			return err
		}
		var req map[string]any
		if err := json.Unmarshal(body, &req); err != nil {
			return err
		}
		progress := false
		for _, r := range blocking(open) {
			// The content is the producer's to write: only the request's other fields
			// are filled here.
			if r.Path == "" || r.Path == "output" || strings.HasPrefix(r.Path, "output.") || r.Path == answerField[s.Kind] ||
				tried[r.Path+"\x00"+r.Message] {
				continue // the answer is the step's own (Answers)
			}
			before := messagesAt(blocking(open), r.Path)
			for _, cand := range c.alternatives(tpl, req, r.Path, *s) {
				if cand.cite == nil && cand.path == answerField[s.Kind] {
					continue
				}
				t := cand.apply(*s)
				_, _, o, err := c.decide(ctx, typ, id, t)
				if err != nil {
					return err
				}
				// Taken when it clears what the policy said at the path (a value that
				// goes with others may bring what to fill in them), or clears some of it and
				// refuses nothing more, or, for a field added, says something else there
				// (what to fill in it).
				if invalid(o) > invalid(open) {
					continue // a value the contract refuses says nothing of what the policy takes
				}
				after := messagesAt(blocking(o), r.Path)
				more := len(blocking(o)) > len(blocking(open))
				if len(after) == 0 || cand.added && !slices.Equal(after, before) || !more && subset(after, before) && len(after) < len(before) {
					*s, progress = t, true
					break
				}
			}
			if progress {
				break
			}
			tried[r.Path+"\x00"+r.Message] = true // nothing clears it
		}
		if !progress {
			return nil
		}
	}
	return nil
}

// invalid counts the reasons that say the request does not match its contract.
func invalid(reasons []Reason) int {
	n := 0
	for _, r := range reasons {
		if r.Code == "SCHEMA_INVALID" || r.Code == "UNKNOWN_FIELD" {
			n++
		}
	}
	return n
}

// subset says whether every string of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// messagesAt are the messages of the reasons at path, sorted.
func messagesAt(reasons []Reason, path string) []string {
	var out []string
	for _, r := range reasons {
		if r.Path == path {
			out = append(out, r.Message)
		}
	}
	sort.Strings(out)
	return out
}

// answerField is the field of a kind's request its Answers go in.
var answerField = map[string]string{"review": "verdict", "approval": "decision", "outcome": "result"}

// candidate is one change to try: a value at a path (added when it adds a field), or
// one more cited version.
type candidate struct {
	path  string
	value any
	added bool
	cite  *Citation
}

// apply makes the step with the change.
func (cand candidate) apply(s Step) Step {
	if cand.cite != nil {
		s.Cite = append(slices.Clone(s.Cite), *cand.cite)
		s.MayCite = slices.DeleteFunc(slices.Clone(s.MayCite), func(m Citation) bool { return m.Type == cand.cite.Type })
		return s
	}
	s.Fill = maps.Clone(s.Fill)
	if s.Fill == nil {
		s.Fill = map[string]any{}
	}
	s.Fill[cand.path] = cand.value
	return s
}

// alternatives are the changes to try for a value the policy refuses at path in req:
// the template's skeleton of an optional field the request leaves out; the other values
// of an enumeration, the other boolean, counts 1 to 5, of the field or of one inside
// it; a recorded artifact type in an empty list (of types to revise); one more of the
// versions the step may cite, the latest recorded first.
func (c *checker) alternatives(tpl *Template, req map[string]any, path string, s Step) []candidate {
	var out []candidate
	keys := strings.Split(path, ".")
	cur, ok := atPath(req, keys)
	if !ok {
		if v, ok := tpl.optionalValue(path); ok && len(keys) == 1 {
			out = append(out, candidate{path: path, value: v, added: true})
		}
		return out
	}
	for p, vals := range tpl.enums {
		if p != path && !strings.HasPrefix(p, path+".") {
			continue
		}
		now, _ := atPath(req, strings.Split(p, "."))
		for _, v := range vals {
			if v != now {
				out = append(out, candidate{path: p, value: v})
			}
		}
	}
	var leaves func(p string, v any)
	leaves = func(p string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				leaves(p+"."+k, x[k])
			}
		case bool:
			out = append(out, candidate{path: p, value: !x})
		case float64:
			for n := 1.0; n <= 5; n++ {
				if n != x {
					out = append(out, candidate{path: p, value: n})
				}
			}
		}
	}
	leaves(path, cur)
	if l, ok := cur.([]any); ok && len(l) == 0 && tpl.listOfText(path) {
		// An empty list of names (the types to revise): one recorded type.
		for _, typ := range sortedNames(c.st.Artifacts) {
			out = append(out, candidate{path: path, value: []any{typ}})
		}
	}
	if s.Kind == "handoff" {
		for _, more := range c.moreCitations(s) {
			added := more[len(more)-1]
			out = append(out, candidate{cite: &added})
		}
	}
	return out
}

// atPath is the value at a path of object keys.
func atPath(v any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// templateOptions are the template options of a step sent by id.
func (c *checker) templateOptions(id string, s Step) TemplateOptions {
	if s.Kind != "handoff" {
		return TemplateOptions{}
	}
	opts := TemplateOptions{Target: s.Target, Source: id, Output: s.Output}
	if s.Source != "" {
		opts.Source = s.Source
	}
	return opts
}

// concerns says whether a reason's path is about the step: empty, a value the step
// gives, inside one, or a field holding one.
func concerns(path string, given []string) bool {
	if path == "" {
		return true
	}
	for _, g := range given {
		if path == g || strings.HasPrefix(path, g+"[") || strings.HasPrefix(path, g+".") || strings.HasPrefix(g, path+".") {
			return true
		}
	}
	return false
}

// request builds the request of a step from the pack's template, and lists the paths of
// the values the step gives.
func (c *checker) request(typ, id string, s Step) ([]byte, []string, error) {
	tpl, err := TemplateFor(c.pipe.Contracts(), c.st.Pack, s.Kind, c.templateOptions(id, s))
	if err != nil {
		return nil, nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(tpl.JSON(), &m); err != nil {
		return nil, nil, err
	}
	m["request_id"], m["tenant_id"], m["workflow_id"] = probeID, c.st.TenantID, c.st.WorkflowID
	if _, ok := m["created_at"]; ok {
		m["created_at"] = c.at.UTC().Format(time.RFC3339Nano) // made when it is sent
	}
	given := []string{"kind", "tenant_id", "workflow_id", "actor.type"}
	if c.st.OrganizationID != "" {
		m["organization_id"] = c.st.OrganizationID
		given = append(given, "organization_id")
	} else {
		delete(m, "organization_id")
	}
	switch typ {
	case "agent":
		m["actor"] = map[string]any{"type": "agent", "id": id}
		given = append(given, "actor.id")
	case "human":
		m["actor"] = map[string]any{"type": "human", "id": "person", "roles": []string{id}}
		given = append(given, "actor.roles")
	default:
		m["actor"] = map[string]any{"type": "system", "id": "host"}
	}
	switch s.Kind {
	case "handoff":
		m["input_artifacts"] = refsOf(s.Cite)
		given = append(given, "source_agent", "target_agent", "task_type", "input_artifacts", "limitations")
		if s.TaskType != "" {
			m["task_type"] = s.TaskType
		}
		if s.Output == "" {
			for _, f := range []string{"output", "assumptions", "limitations", "confidence_score"} {
				delete(m, f)
			}
			given = append(given, "output")
		} else {
			m["limitations"] = append([]string{}, s.Limitations...)
			out, _ := m["output"].(map[string]any)
			if out != nil {
				out["type"], out["version"] = s.Output, s.Version
				if s.OutputID != "" {
					out["id"] = s.OutputID
				}
				if s.Supersedes > 0 {
					out["supersedes"] = s.Supersedes
					// Its content starts from the version it supersedes, and says something
					// new (a version that repeats the last is refused for its content).
					if v := c.st.Artifacts[s.Output].Versions[strconv.Itoa(s.Supersedes)]; v != nil && v.Content != nil {
						content := copyJSON(map[string]any(v.Content))
						amend(content, fmt.Sprintf(" (v%d)", s.Version))
						out["content"] = content
					}
				} else {
					delete(out, "supersedes")
					delete(out, "justification")
				}
			}
			given = append(given, "output.type", "output.version", "output.supersedes")
			if s.OutputID != "" {
				given = append(given, "output.id")
			}
		}
		// Fields a pack's handoff envelope may add that name the task of the graph
		// and the workflow's version.
		if _, ok := m["task_id"]; ok && s.TaskID != "" {
			m["task_id"] = s.TaskID
			given = append(given, "task_id")
		}
		if _, ok := m["state_version"]; ok {
			m["state_version"] = c.st.StateVersion
			given = append(given, "state_version")
		}
		for k, v := range s.Restate {
			if _, ok := m[k]; ok {
				m[k] = v
				given = append(given, k)
			}
		}
	case "review":
		m["artifacts"] = refsOf(s.Cite)
		given = append(given, "artifacts")
		if len(s.Answers) > 0 {
			m["verdict"] = s.Answers[0] // whether it agrees with the findings is the reviewer's to fill
		}
	case "approval":
		m["artifacts"] = refsOf(s.Cite)
		given = append(given, "artifacts", "stage")
		if len(s.Answers) > 0 {
			m["decision"] = s.Answers[0]
		}
		if s.Stage != "" {
			m["stage"] = s.Stage
		} else {
			delete(m, "stage")
		}
	case "failure":
		m["task"], m["agent"] = s.Task, s.Agent
		given = append(given, "task", "agent")
	case "resolution":
		m["conflict_id"] = s.ConflictID
		given = append(given, "conflict_id")
		if refs := refsOf(s.MayCite); len(refs) > 0 {
			m["chosen"] = refs[0]
		} else {
			delete(m, "chosen")
		}
	case "outcome":
		m["effect_id"] = s.EffectID
		given = append(given, "effect_id")
		if len(s.Answers) > 0 {
			m["result"] = s.Answers[0]
			given = append(given, "result")
		}
	}
	for _, path := range slices.Sorted(maps.Keys(s.Fill)) { // a field before the fields inside it
		setPath(m, strings.Split(path, "."), copyJSON(s.Fill[path]))
	}
	c.fillRefs(m, s)
	if in, ok := m["input_artifacts"].([]ArtifactRef); ok {
		fillRefStatus(m, in, func(ref ArtifactRef) string { return c.g.citeVersion(ref.Type, ref.Version).Status })
	}
	body, err := json.Marshal(m)
	return body, given, err
}

// amend appends note to the first free text of v (a string with a space), in key
// order: a change of the content that leaves its ids and codes as they are.
func amend(v any, note string) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if s, ok := x[k].(string); ok && strings.Contains(s, " ") {
				x[k] = s + note
				return true
			}
			if amend(x[k], note) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if amend(e, note) {
				return true
			}
		}
	}
	return false
}

// copyJSON copies a JSON value, so that filling a field inside it leaves it as it was.
func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyJSON(e)
		}
		return out
	}
	return v
}

// setPath sets the value at a path of object keys, when the objects on the way are.
func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// invariants are the values every recorded version that names a field (in its content
// or meta) names alike, where versions of two types name it or the envelope a version
// records (its meta) does: what the workflow keeps through all its requests (its trace,
// its subject under the pack's name for it).
func (c *checker) invariants() map[string]any {
	values := map[string]any{}
	differ := map[string]bool{}
	types := map[string]map[string]bool{} // the artifact types that name each field
	meta := map[string]bool{}             // the fields a version's meta names
	for typ, h := range c.st.Artifacts {
		for _, v := range h.Versions {
			for k := range v.Meta {
				meta[k] = true
			}
			for _, fields := range []map[string]any{v.Content, v.Meta} {
				for k, x := range fields {
					if id, ok := x.(string); !ok || c.g.party(id) {
						continue // not a value of the workflow's (an agent's id belongs to a handoff)
					}
					if prev, ok := values[k]; ok && prev != x {
						differ[k] = true
					}
					values[k] = x
					if types[k] == nil {
						types[k] = map[string]bool{}
					}
					types[k][typ] = true
				}
			}
		}
	}
	for k := range values {
		if differ[k] || len(types[k]) < 2 && !meta[k] {
			delete(values, k) // one artifact's content is its own, not the workflow's
		}
	}
	return values
}

// fillRefStatus replaces every list of versions with their status in v (a handoff's
// context) with the cited versions, each with its recorded status.
func fillRefStatus(v any, cited []ArtifactRef, status func(ArtifactRef) string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if isRefStatusItems(e) {
				items := make([]any, 0, len(cited))
				for _, ref := range cited {
					items = append(items, map[string]any{"ref": ref, "status": status(ref)})
				}
				x[k] = items
				continue
			}
			fillRefStatus(e, cited, status)
		}
	case []any:
		for _, e := range x {
			fillRefStatus(e, cited, status)
		}
	}
}

// isRefStatusItems says whether v is a non-empty list of {ref, status} objects.
func isRefStatusItems(v any) bool {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return false
	}
	for _, e := range l {
		m, ok := e.(map[string]any)
		if _, hasRef := m["ref"]; !ok || len(m) != 2 || !hasRef || m["status"] == nil {
			return false
		}
	}
	return true
}

// fillRefs replaces the template's ${ref:TYPE@latest} placeholders left in v (in an
// output's content, for one) with a recorded version: the latest of TYPE when it is
// recorded, else the step's first citation, else any recorded version. The version a
// content names is a value left to fill; a request whose schema fails would not be
// judged at all.
func (c *checker) fillRefs(v any, s Step) {
	fallback := refsOf(append(slices.Clone(s.Cite), s.MayCite...))
	for _, typ := range sortedNames(c.st.Artifacts) {
		if h := c.st.Artifacts[typ]; h != nil && h.Versions[strconv.Itoa(h.Latest)] != nil {
			fallback = append(fallback, h.Versions[strconv.Itoa(h.Latest)].Ref)
		}
	}
	var fill func(x any) any
	fill = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = fill(e)
			}
		case []any:
			for i, e := range x {
				x[i] = fill(e)
			}
		case string:
			typ, ok := strings.CutPrefix(x, "${ref:")
			if !ok {
				return x
			}
			typ, _, _ = strings.Cut(typ, "@")
			if h := c.st.Artifacts[typ]; h != nil && h.Versions[strconv.Itoa(h.Latest)] != nil {
				return h.Versions[strconv.Itoa(h.Latest)].Ref
			}
			if len(fallback) > 0 {
				return fallback[0]
			}
		}
		return x
	}
	fill(v)
}

func refsOf(cs []Citation) []ArtifactRef {
	out := []ArtifactRef{}
	for _, c := range cs {
		if c.Ref != nil {
			out = append(out, *c.Ref)
		}
	}
	return out
}
