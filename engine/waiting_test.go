package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/testsize"
)

// contentReason says whether a reason a request built from a template and Waiting is
// blocked for is one the template cannot know: a reason about the output's content
// (its path lies inside output.content), whose values the template holds placeholders
// for ("<text>", 1, an empty list) and a step the scenario does not take at that point
// can only borrow from its other requests or from the version it supersedes. A code a
// pack also gives about the envelope (REFERENCE_MISMATCH, for one) passes only at a
// content path. Never a root cause (core guardrails.root_causes: a request that cannot
// be read, another tenant's or scope's, a sender who may not send it, another stage,
// version or transition, a retry not due), whatever its path: identity, authorization,
// sequence and transition codes never pass.
func contentReason(r engine.Reason, rootCauses []string) bool {
	return strings.HasPrefix(r.Path, "output.content") && !slices.Contains(rootCauses, r.Code)
}

// TestWaitingFollowsScenarios plays every scenario of every shipped pack through the
// engine on a Badger store and, before every step the scenario's workflow accepts,
// asks Waiting what the workflow waits for at the step's time. (a) Waiting offers the
// step: a party that is its sender may send its kind, to its target with its output
// type, citing what Waiting says it must and nothing Waiting does not list; a review
// or an approval names Waiting's versions. (b) Every step Waiting offers, made a request
// from the pack's template and the step alone (ids, times and, for the step the
// scenario takes, the content values the template asks for come from the scenario),
// is not blocked, or only for contentCodes; a step not due yet is so at its NotBefore.
func TestWaitingFollowsScenarios(t *testing.T) {
	var files []string
	for _, pack := range []string{"campaign", "video", "support", "assessment"} {
		f, err := filepath.Glob("../policies_test/handoff/" + pack + "/scenarios/*.scenario")
		require.NoError(t, err)
		require.NotEmpty(t, f, pack)
		// Every scenario with HANDOFF_FULL=1 (CI); a sixth of each pack's by default.
		files = append(files, testsize.Sample(f, 6)...)
	}
	dc, err := engine.NewDecider(context.Background(), engine.DeciderOptions{LazyPolicies: true, EvalTimeout: time.Minute})
	require.NoError(t, err)
	var guardrails struct {
		RootCauses []string `json:"root_causes"`
	}
	b := engine.ShippedBundle()
	data, err := fs.ReadFile(b.Policies, "handoff/core/contract/data.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &guardrails))
	rootCauses := guardrails.RootCauses
	require.Contains(t, rootCauses, "UNAUTHORIZED_SUBJECT")
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(filepath.Dir(filepath.Dir(file)))+"/"+filepath.Base(file), scenario.Ext), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			sc, err := scenario.Load(file)
			require.NoError(t, err)
			eng, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), Decider: dc})
			require.NoError(t, err)
			defer eng.Close()
			p := scenario.NewPlayer(eng)
			ids := scenarioIDs(t, sc)
			b := builder{t: t, dc: dc, ids: ids, sc: sc, rootCauses: rootCauses,
				render: func(raw json.RawMessage) ([]byte, error) { return p.Render(ctx, raw) }}
			var st *engine.State
			var tenant, workflow string
			sent := map[string]bool{}
			for i, step := range sc.Steps {
				body, err := p.Render(ctx, step.Request)
				require.NoError(t, err)
				at := step.At()
				if at.IsZero() {
					at = time.Now()
				}
				var id struct {
					RequestID string `json:"request_id"`
				}
				_ = json.Unmarshal(body, &id)
				replay := sent[id.RequestID] // answered with the recorded decision: not a step
				sent[id.RequestID] = true
				if st != nil && step.Expect.Outcome != engine.Block && !replay && ofWorkflow(body, st) {
					w, err := eng.Decider().WaitingAt(ctx, st, at)
					require.NoError(t, err)
					checkOffered(t, i+1, w, body)
					checkActors(t, i+1, eng, st, w)
					b.step = i
					b.checkAccepted(ctx, eng, i+1, st, w, body, at)
				}
				d, err := eng.SubmitAt(ctx, body, at)
				require.NoError(t, err)
				require.Equal(t, step.Expect.Outcome, d.Outcome, "step %d (%s)", i+1, step.Name)
				p.Observe(body, d)
				if workflow == "" && d.Kind == "start" && d.Outcome != engine.Block {
					tenant, workflow = d.TenantID, d.WorkflowID
				}
				if workflow != "" {
					st, err = eng.State(ctx, tenant, workflow)
					require.NoError(t, err)
				}
			}
			w, err := eng.Decider().WaitingAt(ctx, st, time.Now())
			require.NoError(t, err)
			assert.Equal(t, st.Terminal, w.Terminal)
		})
	}
}

// checkActors: Actors, which asks no policy, lists every party Waiting lists, and every
// kind of request Waiting offers a person, so that a list built from Actors (the
// console's inbox) misses no one the policy takes a step of. (The host may be offered a
// step more: an agent's handoff the policy takes only from the host.)
func checkActors(t *testing.T, n int, eng *engine.Engine, st *engine.State, w *engine.Waiting) {
	t.Helper()
	parties, err := eng.Decider().Actors(st)
	require.NoError(t, err)
	for _, p := range w.Parties {
		i := slices.IndexFunc(parties, func(a engine.Party) bool { return a.ID == p.ID && a.Type == p.Type })
		if !assert.GreaterOrEqual(t, i, 0, "step %d: Actors lacks %s %s", n, p.Type, p.ID) {
			continue
		}
		for _, s := range p.Requests {
			if p.Type == "system" {
				break
			}
			assert.True(t, slices.ContainsFunc(parties[i].Requests, func(a engine.Step) bool { return a.Kind == s.Kind }),
				"step %d: Actors has no %s of %s", n, s.Kind, p.ID)
		}
	}
}

// ofWorkflow says whether a request is for the workflow of st (not a start, nor
// another tenant's or workflow's request a scenario sends to be refused).
func ofWorkflow(body []byte, st *engine.State) bool {
	var r struct {
		Kind     string `json:"kind"`
		Tenant   string `json:"tenant_id"`
		Workflow string `json:"workflow_id"`
	}
	return json.Unmarshal(body, &r) == nil && r.Kind != "start" && r.Tenant == st.TenantID && r.Workflow == st.WorkflowID
}

// request is what the tests read of a request.
type request struct {
	shape
	Inputs []engine.ArtifactRef `json:"input_artifacts"`
	Refs   []engine.ArtifactRef `json:"artifacts"`
}

// shape is what a request is and who sends it.
type shape struct {
	Kind  string `json:"kind"`
	Actor struct {
		Type  string   `json:"type"`
		ID    string   `json:"id"`
		Roles []string `json:"roles"`
	} `json:"actor"`
	Decision string                 `json:"decision"`
	Stage    string                 `json:"stage"`
	Source   string                 `json:"source_agent"`
	Target   string                 `json:"target_agent"`
	TaskID   string                 `json:"task_id"`
	Output   *struct{ Type string } `json:"output"`
	Task     string                 `json:"task"`
	Agent    string                 `json:"agent"`
	EffectID string                 `json:"effect_id"`
	Conflict string                 `json:"conflict_id"`
}

// sends says whether a party of w sends r: the agent itself, a person holding the
// role, or the host. An outcome may also come from the effect's recipient (a person
// acknowledging a delivery), a cancel from a person as from the host: next says so.
func sends(party engine.Party, r shape) bool {
	switch {
	case party.Type == "agent":
		return r.Actor.Type == "agent" && party.ID == r.Actor.ID
	case party.Type == "human":
		return r.Actor.Type == "human" && slices.Contains(r.Actor.Roles, party.ID)
	default:
		return r.Actor.Type == "system" || r.Kind == "outcome" || r.Kind == "cancel" && r.Actor.Type == "human"
	}
}

// checkOffered requires w to offer the request body.
func checkOffered(t *testing.T, n int, w *engine.Waiting, body []byte) {
	t.Helper()
	var r request
	require.NoError(t, json.Unmarshal(body, &r))
	var offered []engine.Step
	for _, party := range w.Parties {
		if !sends(party, r.shape) {
			continue
		}
		for _, s := range party.Requests {
			if s.Kind == r.Kind && s.NotBefore == "" && len(s.After) == 0 {
				offered = append(offered, s)
			}
		}
	}
	require.NotEmpty(t, offered, "step %d: %s of %s %s at %s is not offered: %s", n, r.Kind, r.Actor.Type, r.Actor.ID, w.Status, dump(w))
	switch r.Kind {
	case "handoff":
		var s *engine.Step
		for i := range offered {
			o := &offered[i]
			if o.Target == r.Target && (r.Output == nil && o.Output == "" || r.Output != nil && o.Output == r.Output.Type) &&
				(o.TaskID == "" || o.TaskID == r.TaskID) && (o.Source == "" || o.Source == r.Source) {
				s = o
			}
		}
		require.NotNil(t, s, "step %d: handoff to %s is not offered: %s", n, r.Target, dump(w))
		for _, c := range s.Cite {
			require.NotNil(t, c.Ref, "step %d: %s: %s", n, c.Type, c.Missing)
			assert.Contains(t, r.Inputs, *c.Ref, "step %d: the handoff does not cite %s", n, c.Placeholder)
		}
		may := refs(append(slices.Clone(s.Cite), s.MayCite...))
		for _, in := range r.Inputs {
			assert.Contains(t, may, in, "step %d: the handoff cites %s v%d, which Waiting does not list", n, in.Type, in.Version)
		}
	case "review":
		assert.ElementsMatch(t, r.Refs, refs(offered[0].Cite), "step %d: got the request's versions, want Waiting's", n)
	case "approval":
		i := slices.IndexFunc(offered, func(s engine.Step) bool { return s.Stage == r.Stage })
		if i < 0 && r.Stage == "" { // a decision that names no stage: on the versions it names
			i = slices.IndexFunc(offered, func(s engine.Step) bool { return len(s.Cite) > 0 })
		}
		require.GreaterOrEqual(t, i, 0, "step %d: no approval of stage %q is offered: %s", n, r.Stage, dump(w))
		if r.Decision == "APPROVE" {
			assert.ElementsMatch(t, r.Refs, refs(offered[i].Cite), "step %d: got the request's versions, want Waiting's", n)
		} else { // a revision request or a rejection names some of them
			assert.Subset(t, refs(offered[i].Cite), r.Refs, "step %d: got the request's versions, want some of Waiting's", n)
		}
	case "failure":
		assert.True(t, slices.ContainsFunc(offered, func(s engine.Step) bool { return s.Task == r.Task && s.Agent == r.Agent }),
			"step %d: the failure of %s by %s is not offered: %s", n, r.Task, r.Agent, dump(w))
	case "outcome":
		assert.True(t, slices.ContainsFunc(offered, func(s engine.Step) bool { return s.EffectID == r.EffectID }),
			"step %d: the outcome of %s is not offered: %s", n, r.EffectID, dump(w))
	}
}

func refs(cs []engine.Citation) []engine.ArtifactRef {
	out := []engine.ArtifactRef{}
	for _, c := range cs {
		if c.Ref != nil {
			out = append(out, *c.Ref)
		}
	}
	return out
}

func dump(w *engine.Waiting) string {
	b, _ := json.MarshalIndent(w.Parties, "", " ")
	return string(b)
}

// ids are the ids a scenario's requests use: its trace, the host's service ids by
// request kind (outcomes by effect kind too), the people by role.
type ids struct {
	trace   string
	host    map[string]string
	persons map[string]string
}

func scenarioIDs(t *testing.T, sc *scenario.Scenario) ids {
	out := ids{host: map[string]string{}, persons: map[string]string{}}
	// The requests the workflow accepts, then those it blocks for another reason than
	// their sender.
	var steps []scenario.Step
	for _, step := range sc.Steps {
		if step.Expect.Outcome != engine.Block {
			steps = append(steps, step)
		}
	}
	for _, step := range sc.Steps {
		if step.Expect.Outcome == engine.Block && !slices.Contains(step.Expect.Reasons, "UNAUTHORIZED_SUBJECT") &&
			!slices.Contains(step.Expect.Reasons, "SOURCE_NOT_AUTHORIZED") {
			steps = append(steps, step)
		}
	}
	for _, step := range steps {
		var r struct { // raw requests cite ${ref:...} placeholders: read the ids only
			Kind  string `json:"kind"`
			Trace string `json:"trace_id"`
			Actor struct {
				Type  string   `json:"type"`
				ID    string   `json:"id"`
				Roles []string `json:"roles"`
			} `json:"actor"`
			EffectID string `json:"effect_id"`
		}
		if json.Unmarshal(step.Request, &r) != nil {
			continue
		}
		if out.trace == "" {
			out.trace = r.Trace
		}
		first := func(m map[string]string, k, v string) {
			if m[k] == "" {
				m[k] = v
			}
		}
		switch r.Actor.Type {
		case "system":
			first(out.host, r.Kind, r.Actor.ID)
			if r.Kind == "outcome" {
				first(out.host, "outcome:"+effectKind(r.EffectID), r.Actor.ID)
			}
			first(out.host, "", r.Actor.ID)
		case "human":
			for _, role := range r.Actor.Roles {
				first(out.persons, role, r.Actor.ID)
			}
		}
	}
	return out
}

func effectKind(id string) string {
	k, _, _ := strings.Cut(id, "/")
	return k
}

// hostID is the host's id for a request of kind (an outcome of effect).
func (i ids) hostID(kind, effect string) string {
	for _, k := range []string{"outcome:" + effectKind(effect), kind, ""} {
		if id := i.host[k]; id != "" && (k != "outcome:"+effectKind(effect) || kind == "outcome") {
			return id
		}
	}
	return "host"
}

// builder makes requests from a pack's template and Waiting's steps.
type builder struct {
	t      *testing.T
	dc     *engine.Decider
	ids    ids
	sc     *scenario.Scenario
	render func(json.RawMessage) ([]byte, error)
	// rootCauses are the core's guardrails.root_causes.
	rootCauses []string
	n          int
	step       int // the index of the scenario's step being played
}

// templateSet are the fields a template sets itself (the kind, a handoff's agents and
// task), and output, whose content alone is filled.
var templateSet = []string{"kind", "source_agent", "target_agent", "sender", "recipient", "task_type", "output"}

// fill replaces, in v (the value at path), the values still the template's (tpl) with
// the scenario file's: at the same path in its requests, else of a field of the same
// name; the nearest request before the step played first.
func (b *builder) fill(path string, v, tpl any) any {
	if obj, ok := v.(map[string]any); ok {
		tplObj, _ := tpl.(map[string]any)
		for k, x := range obj {
			obj[k] = b.fill(path+"."+k, x, tplObj[k])
		}
		return obj
	}
	if !reflect.DeepEqual(v, tpl) {
		return v
	}
	if x, ok := b.fileValue(path); ok && reflect.TypeOf(x) == reflect.TypeOf(v) {
		return x
	}
	if l, ok := v.([]any); ok { // no such list in the file: fill its items' fields
		tplList, _ := tpl.([]any)
		for i, e := range l {
			var te any
			if i < len(tplList) {
				te = tplList[i]
			}
			l[i] = b.fill(path+"[]", e, te)
		}
	}
	return v
}

// fileValue is the value at path in the nearest of the scenario's requests, else of
// the nearest field named as path's last element; an earlier step first. A value that
// holds a placeholder is not taken.
func (b *builder) fileValue(path string) (any, bool) {
	if x, ok := b.nearest(func(req any) (any, bool) { return atPath(req, strings.Split(path, ".")) }); ok {
		return x, true
	}
	name := path[strings.LastIndex(path, ".")+1:]
	if !strings.HasPrefix(path, "output.content.") {
		return nil, false
	}
	// A content value: of a field so named in the content of another output or in the
	// brief the workflow started from.
	return b.nearest(func(req any) (any, bool) {
		for _, at := range [][]string{{"output", "content"}, {"brief"}} {
			if content, ok := atPath(req, at); ok {
				if x, ok := findField(content, name); ok {
					return x, true
				}
			}
		}
		return nil, false
	})
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

// nearest is the first value find finds in the scenario's requests, the step played
// and those before it first, nearest first.
func (b *builder) nearest(find func(any) (any, bool)) (any, bool) {
	order := make([]int, 0, len(b.sc.Steps))
	for i := b.step; i >= 0; i-- {
		order = append(order, i)
	}
	for i := b.step + 1; i < len(b.sc.Steps); i++ {
		order = append(order, i)
	}
	for _, i := range order {
		var req any
		if json.Unmarshal(b.sc.Steps[i].Request, &req) != nil {
			continue
		}
		if x, ok := find(req); ok && !strings.Contains(fmt.Sprint(x), "${") {
			return x, true
		}
	}
	return nil, false
}

// findField is the first value of a field called name in v, breadth first.
func findField(v any, name string) (any, bool) {
	queue := []any{v}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		switch x := x.(type) {
		case map[string]any:
			if y, ok := x[name]; ok {
				return y, true
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				queue = append(queue, x[k])
			}
		case []any:
			queue = append(queue, x...)
		}
	}
	return nil, false
}

// example is the request the scenario sends for step s of party: taken when it is
// this step, else the nearest request of the file the workflow accepts that is, an
// earlier one first (rendered on the state now when it can be); nil when there is none. Its values are the content
// values the template asks for.
func (b *builder) example(party engine.Party, s engine.Step, taken []byte) []byte {
	if takes(party, s, taken) {
		return taken
	}
	order := make([]int, 0, len(b.sc.Steps))
	for i := b.step - 1; i >= 0; i-- {
		order = append(order, i)
	}
	for i := b.step + 1; i < len(b.sc.Steps); i++ {
		order = append(order, i)
	}
	judgement := map[string]string{"review": "verdict", "approval": "decision", "outcome": "result"}[s.Kind]
	for _, i := range order {
		step := b.sc.Steps[i]
		if step.Expect.Outcome == engine.Block || !takes(party, s, step.Request) {
			continue
		}
		if judgement != "" && len(s.Answers) > 0 {
			var r map[string]any
			if json.Unmarshal(step.Request, &r) != nil || r[judgement] != s.Answers[0] {
				continue // what goes with another verdict does not go with this one
			}
		}
		if body, err := b.render(step.Request); err == nil {
			return body
		}
		return step.Request
	}
	return nil
}

// checkAccepted requires every step w offers, made a request, not to be blocked but
// for contentCodes: now, or at its NotBefore.
func (b *builder) checkAccepted(ctx context.Context, eng *engine.Engine, n int, st *engine.State, w *engine.Waiting, taken []byte, at time.Time) {
	t := b.t
	t.Helper()
	for _, party := range w.Parties {
		for _, s := range party.Requests {
			if len(s.After) > 0 {
				continue // a later step: it waits for outputs of its own
			}
			when := at
			if s.NotBefore != "" {
				nb, err := time.Parse(time.RFC3339Nano, s.NotBefore)
				require.NoError(t, err)
				when = nb
			}
			body := b.build(st, w, party, s, taken, when)
			d, err := eng.EvaluateAt(ctx, body, when)
			require.NoError(t, err)
			if d.Outcome != engine.Block {
				continue
			}
			var other []string
			content := 0
			for _, r := range d.Reasons {
				if contentReason(r, b.rootCauses) {
					content++
				}
			}
			for _, r := range d.Reasons {
				// A reason without a path that sums up the others (a security audit of
				// the request) passes when they all do.
				summary := r.Path == "" && !slices.Contains(b.rootCauses, r.Code) && content == len(d.Reasons)-1
				if !contentReason(r, b.rootCauses) && !summary {
					other = append(other, fmt.Sprintf("%s %s: %s", r.Code, r.Path, r.Message))
				}
			}
			assert.Empty(t, other, "step %d at %s: %s %s's %s %+v is refused\n%s", n, w.Status, party.Type, party.ID, s.Kind, s, body)
		}
	}
}

// build makes the request of step s of party from the pack's template and the step:
//
//   - the ids: request_id (fresh), tenant, workflow, organization, the scenario's trace,
//     the actor (an agent's id, the scenario's person for a role, its service for the
//     host);
//   - what the step names: target, output type, version, id and the version it
//     supersedes, task, citations (the versions it must cite; the scenario's choice
//     among those it may cite), limitations, the first answer, stage, conflict, effect,
//     the assignment it restates and the values next fills (Fill);
//   - the values the template leaves to fill (content, free text, a verdict): from the
//     scenario's request when it takes this very step; else from the nearest request of
//     the file that is the same step (but the request's own ids, which the template
//     names after their field: fresh); else the output's content from the file's content
//     values of fields of the same name;
//   - where the request lists versions with their status (a context): the versions it
//     cites with the status next gives each.
func (b *builder) build(st *engine.State, w *engine.Waiting, party engine.Party, s engine.Step, taken []byte, at time.Time) []byte {
	t := b.t
	opts := engine.TemplateOptions{}
	if s.Kind == "handoff" {
		opts = engine.TemplateOptions{Target: s.Target, Source: party.ID, Output: s.Output}
		if s.Source != "" {
			opts.Source = s.Source
		}
	}
	tpl, err := b.dc.Template(st.Pack, s.Kind, opts)
	require.NoError(t, err)
	var m, tplMap map[string]any
	require.NoError(t, json.Unmarshal(tpl.JSON(), &m))
	require.NoError(t, json.Unmarshal(tpl.JSON(), &tplMap))
	b.n++
	set := map[string]any{
		"request_id": fmt.Sprintf("waiting-%d", b.n), "tenant_id": st.TenantID, "workflow_id": st.WorkflowID,
		"organization_id": st.OrganizationID, "trace_id": b.ids.trace,
	}
	if _, ok := m["created_at"]; ok {
		set["created_at"] = at.UTC().Format(time.RFC3339) // made when it is sent
	}
	switch party.Type {
	case "agent":
		set["actor"] = map[string]any{"type": "agent", "id": party.ID}
	case "human":
		person := b.ids.persons[party.ID]
		if person == "" {
			person = "person-1"
		}
		set["actor"] = map[string]any{"type": "human", "id": person, "roles": []string{party.ID}}
	default:
		set["actor"] = map[string]any{"type": "system", "id": b.ids.hostID(s.Kind, s.EffectID)}
	}
	if k := map[string]string{"review": "verdict", "approval": "decision", "outcome": "result"}[s.Kind]; k != "" && len(s.Answers) > 0 {
		set[k] = s.Answers[0]
	}
	drop := []string{}
	switch s.Kind {
	case "handoff":
		set["input_artifacts"] = refs(s.Cite)
		if s.TaskType != "" {
			set["task_type"] = s.TaskType
		}
		if _, ok := m["task_id"]; ok && s.TaskID != "" {
			set["task_id"] = s.TaskID
		}
		if _, ok := m["state_version"]; ok {
			set["state_version"] = w.StateVersion
		}
		for k, v := range s.Restate {
			if _, ok := m[k]; ok {
				set[k] = v
			}
		}
		if s.Output == "" {
			drop = append(drop, "output", "assumptions", "limitations", "confidence_score")
		} else {
			set["limitations"] = append([]string{}, s.Limitations...)
			out := m["output"].(map[string]any)
			out["type"], out["version"] = s.Output, s.Version
			if s.OutputID != "" {
				out["id"] = s.OutputID
			}
			if s.Supersedes > 0 {
				out["supersedes"] = s.Supersedes
			} else {
				delete(out, "supersedes")
				delete(out, "justification")
			}
		}
	case "review":
		set["artifacts"] = refs(s.Cite)
	case "approval":
		set["artifacts"] = refs(s.Cite)
		if s.Stage != "" {
			set["stage"] = s.Stage
		} else {
			drop = append(drop, "stage")
		}
	case "failure":
		set["task"], set["agent"] = s.Task, s.Agent
	case "resolution":
		set["conflict_id"] = s.ConflictID
		if r := refs(s.MayCite); len(r) > 0 {
			set["chosen"] = r[0]
		}
	case "outcome":
		set["effect_id"] = s.EffectID
	}
	if st.OrganizationID == "" {
		drop = append(drop, "organization_id")
	}
	own := takes(party, s, taken)
	ex := b.example(party, s, taken)
	if ex != nil {
		var sc map[string]any
		require.NoError(t, json.Unmarshal(ex, &sc))
		if in, ok := sc["input_artifacts"].([]any); ok && s.Kind == "handoff" {
			// The versions the step may cite of the types the scenario chose to cite.
			cited := set["input_artifacts"].([]engine.ArtifactRef)
			for _, c := range s.MayCite {
				for _, x := range in {
					if c.Ref != nil && refType(x) == c.Type {
						cited = append(cited, *c.Ref)
					}
				}
			}
			set["input_artifacts"] = cited
		}
		fields := m
		if own {
			fields = sc // the optional fields the template lists by name too
		}
		for k := range fields {
			_, enum := tpl.Enums()[k]
			// Another request's own ids, enumerated choices and context (a statement of
			// the state it was sent in) are not this one's.
			if _, given := set[k]; given || slices.Contains(templateSet, k) || !own && (isOwnID(k, tplMap[k]) || enum || k == "context") {
				continue
			}
			if v, ok := sc[k]; ok {
				m[k] = v
			}
		}
		if scOut, ok := sc["output"].(map[string]any); ok && s.Output != "" {
			out := m["output"].(map[string]any)
			for _, k := range []string{"content", "justification"} {
				if _, ok := out[k]; ok && scOut[k] != nil {
					out[k] = scOut[k]
				}
			}
		}
		for _, k := range []string{"verdict", "decision", "result"} { // the judgement is the scenario's
			if _, ok := set[k]; ok && sc[k] != nil && own {
				set[k] = sc[k]
			}
		}
	} else if out, ok := m["output"].(map[string]any); ok {
		tplOut, _ := tplMap["output"].(map[string]any)
		out["content"] = b.fill("output.content", out["content"], tplOut["content"])
	}
	if out, ok := m["output"].(map[string]any); ok && !own && s.Supersedes > 0 {
		// A new version the scenario does not make here starts from the version it
		// supersedes.
		if v := st.Artifacts[s.Output].Versions[fmt.Sprint(s.Supersedes)]; v != nil {
			out["content"] = v.Content
		}
	}
	if own && s.Kind == "handoff" {
		// Which inherited limitation it drops, with a justification, is the scenario's.
		var sc map[string]any
		require.NoError(t, json.Unmarshal(taken, &sc))
		if l, ok := sc["limitations"]; ok {
			set["limitations"] = l
		}
	}
	for k, v := range set {
		m[k] = v
	}
	if !own {
		for _, path := range slices.Sorted(maps.Keys(s.Fill)) {
			v, _ := json.Marshal(s.Fill[path]) // a copy: a field inside it may be filled too
			var c any
			require.NoError(t, json.Unmarshal(v, &c))
			setPath(m, strings.Split(path, "."), c)
		}
	}
	for _, k := range drop {
		delete(m, k)
	}
	for k, v := range m {
		if _, given := set[k]; !given && isOwnID(k, v) {
			m[k] = fmt.Sprintf("%s-%d", k, b.n) // fresh
		}
	}
	fillStepRefs(m, st, append(refs(s.Cite), refs(s.MayCite)...))
	if in, ok := m["input_artifacts"].([]engine.ArtifactRef); ok && !own {
		statuses := map[engine.ArtifactRef]string{}
		for _, c := range append(slices.Clone(s.Cite), s.MayCite...) {
			if c.Ref != nil {
				statuses[*c.Ref] = c.Status
			}
		}
		restateStatuses(m, in, statuses)
	}
	body, err := json.Marshal(m)
	require.NoError(t, err)
	return body
}

// isOwnID says whether a template's value is the placeholder of one of the request's
// own ids: the template names an id after its field (handoff_id: "handoff_id").
func isOwnID(field string, v any) bool {
	return v == field
}

// refType is the type a request's reference names: {"type": ...} or "${ref:TYPE@N}".
func refType(x any) string {
	switch x := x.(type) {
	case map[string]any:
		t, _ := x["type"].(string)
		return t
	case string:
		t, _, _ := strings.Cut(strings.TrimPrefix(x, "${ref:"), "@")
		return t
	}
	return ""
}

// fillStepRefs resolves the template's ${ref:TYPE@latest} placeholders left in v (an
// output's content may name a version): the latest recorded version of TYPE, or, for a
// TYPE the template could not name, the step's first citation.
func fillStepRefs(v any, st *engine.State, cited []engine.ArtifactRef) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && strings.HasPrefix(s, "${ref:") {
				x[k] = resolveRef(s, st, cited)
			} else {
				fillStepRefs(e, st, cited)
			}
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok && strings.HasPrefix(s, "${ref:") {
				x[i] = resolveRef(s, st, cited)
			} else {
				fillStepRefs(e, st, cited)
			}
		}
	}
}

func resolveRef(s string, st *engine.State, cited []engine.ArtifactRef) any {
	typ, _, _ := strings.Cut(strings.TrimPrefix(s, "${ref:"), "@")
	if h := st.Artifacts[typ]; h != nil {
		if v := h.Versions[fmt.Sprint(h.Latest)]; v != nil {
			return v.Ref
		}
	}
	if len(cited) > 0 {
		return cited[0]
	}
	return s
}

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

// restateStatuses replaces the lists of {ref, status} items in v with the versions
// cited, each with its status.
func restateStatuses(v any, cited []engine.ArtifactRef, statuses map[engine.ArtifactRef]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if l, ok := e.([]any); ok && len(l) > 0 {
				if item, ok := l[0].(map[string]any); ok && len(item) == 2 && item["ref"] != nil && item["status"] != nil {
					items := []any{}
					for _, ref := range cited {
						items = append(items, map[string]any{"ref": ref, "status": statuses[ref]})
					}
					x[k] = items
					continue
				}
			}
			restateStatuses(e, cited, statuses)
		}
	case []any:
		for _, e := range x {
			restateStatuses(e, cited, statuses)
		}
	}
}

// takes says whether the scenario's request is the step s of party.
func takes(party engine.Party, s engine.Step, body []byte) bool {
	var r shape // a raw request of the file cites ${ref:...} placeholders: not read
	if json.Unmarshal(body, &r) != nil || r.Kind != s.Kind || !sends(party, r) {
		return false
	}
	switch s.Kind {
	case "handoff":
		return r.Target == s.Target && (r.Output == nil) == (s.Output == "") && (r.Output == nil || r.Output.Type == s.Output) &&
			(s.TaskID == "" || r.TaskID == s.TaskID)
	case "failure":
		return r.Task == s.Task && r.Agent == s.Agent
	case "outcome":
		return r.EffectID == s.EffectID
	case "resolution":
		return r.Conflict == s.ConflictID
	case "approval":
		return r.Stage == s.Stage
	}
	return true
}
