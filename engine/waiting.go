package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Waiting is what a workflow waits for: who may act in its status and, for each, the
// requests the policy accepts there with the recorded versions each must cite. The
// steps are derived from the pack's contract tables (agents and their permissions,
// roles and what they approve, actors per status, transitions, artifact contracts,
// context packages and the pack's required_inputs configuration) and the workflow's
// state (its artifacts, task graph and effects); then each is put to the policy as a
// dry run (see Step.Outcome), and a step the policy refuses for who sends it, when or
// in which order is left out. The policy still decides every request actually sent.
type Waiting struct {
	WorkflowID   string `json:"workflow_id"`
	TenantID     string `json:"tenant_id"`
	Pack         string `json:"pack"`
	Status       string `json:"status"`
	Terminal     bool   `json:"terminal"`
	StateVersion uint64 `json:"state_version"`
	// At is the time the steps were put to the policy (RFC 3339).
	At string `json:"at"`
	// Parties are who may act now: agents and human roles of the status, then the host.
	// A terminal workflow lists them only when the policy still takes something (the
	// outcome of a human handoff, for one).
	Parties []Party `json:"parties"`
	// Leads are the transitions out of the status, cancel left out.
	Leads []Lead `json:"leads"`
}

// Party is one agent, human role or the host that may act now.
type Party struct {
	ID   string `json:"id"`
	Type string `json:"type"` // agent, human (a role) or system (the host)
	Name string `json:"name,omitempty"`
	Task string `json:"task,omitempty"`
	// Requests are what it may send, in the order the contract lists them.
	Requests []Step `json:"requests"`
	// Note says why a party of the status has nothing to send.
	Note string `json:"note,omitempty"`
	// Refused are the steps derived for it that the policy refuses now (Step.Reasons
	// say why); they are not offered.
	Refused []Step `json:"refused,omitempty"`

	// offStage marks an agent not acting in the status: listed only when the policy
	// takes something of it.
	offStage bool
}

// Step is one request a party may send.
type Step struct {
	Kind string `json:"kind"`
	// Source, on a handoff the host sends, is the agent on whose behalf it sends it (the
	// policy refuses the agent's own).
	Source string `json:"source,omitempty"`
	// Target is a handoff's target_agent; Output the artifact type it delivers, at
	// Version (Supersedes the latest recorded version, when there is one), under the
	// artifact's OutputID once a version is recorded. A handoff without Output routes
	// work only: it assigns TaskID.
	Target     string `json:"target,omitempty"`
	Output     string `json:"output,omitempty"`
	OutputID   string `json:"output_id,omitempty"`
	Version    int    `json:"version,omitempty"`
	Supersedes int    `json:"supersedes,omitempty"`
	// TaskType is a handoff's task_type: the source's task in the status.
	TaskType string `json:"task_type,omitempty"`
	// TaskID is the task of the workflow's task graph a handoff assigns or completes (a
	// pack whose handoffs name it has a task_id field). Restate are the request's fields
	// the task's recorded assignment gives, to restate as they are.
	TaskID  string         `json:"task_id,omitempty"`
	Restate map[string]any `json:"restate,omitempty"`
	// Limitations are the limitations recorded on the versions the handoff must cite:
	// its limitations restate each.
	Limitations []string `json:"limitations,omitempty"`
	// Stage is an approval's stage; Answers the decisions a person may give, the
	// verdicts a reviewer may give, or the results of an outcome the policy takes now.
	Stage   string   `json:"stage,omitempty"`
	Answers []string `json:"answers,omitempty"`
	// Task and Agent are a failure's: the task that failed and the agent it ran with
	// (the task graph's id when the workflow has one, else the agent's task).
	Task  string `json:"task,omitempty"`
	Agent string `json:"agent,omitempty"`
	// ConflictID is a resolution's conflict.
	ConflictID string `json:"conflict_id,omitempty"`
	// EffectID is an outcome's effect.
	EffectID string `json:"effect_id,omitempty"`
	// Field is the request field Cite goes in: input_artifacts, artifacts or chosen.
	Field string `json:"field,omitempty"`
	// After are the outputs of the same party this handoff needs recorded first: the
	// order of its steps. A step with After is not sent yet.
	After []string `json:"after,omitempty"`
	// Cite are the versions the request must name; MayCite those it may name too.
	Cite    []Citation `json:"cite,omitempty"`
	MayCite []Citation `json:"may_cite,omitempty"`
	// Fill are values of fields the request leaves to fill that the policy takes with
	// the rest of the step, by dotted path: the value of an enumeration that goes with
	// it (a failure's retry type, a handoff's type) where the template's first is refused.
	Fill map[string]any `json:"fill,omitempty"`
	// Outcome and Reasons are the policy's answer to the step now, when its reasons
	// concern the step itself (who sends it, when, what it cites) rather than the values
	// left to fill: a deadline that passed escalates, a last retry spends the budget.
	// Empty when the policy has nothing to say about the step itself.
	Outcome Outcome  `json:"outcome,omitempty"`
	Reasons []Reason `json:"reasons,omitempty"`
	// NotBefore, on a step the policy refuses now (Outcome block), is the earliest time
	// it accepts it (RFC 3339): a retry not due yet.
	NotBefore string `json:"not_before,omitempty"`

	// redo marks a handoff of a task done before: offered only when the policy takes it
	// plainly (an authorization verified again).
	redo bool
}

// Citation is one artifact version to name in a request: the recorded reference and
// the ${ref:TYPE@N} placeholder scenarios use for it. Ref is nil when no version of
// Type is recorded (Missing says what is missing).
type Citation struct {
	Type        string       `json:"type"`
	Ref         *ArtifactRef `json:"ref,omitempty"`
	Placeholder string       `json:"placeholder,omitempty"`
	// Status is the version's recorded status, which a request restates where it
	// lists versions with their status.
	Status  string `json:"status,omitempty"`
	Missing string `json:"missing,omitempty"`
}

// Lead is one transition out of the status.
type Lead struct {
	To string `json:"to"`
	On string `json:"on,omitempty"`
}

// packTables is what Waiting reads of a pack's tables, in the contract's shapes.
type packTables struct {
	Agents map[string]struct {
		Name     string   `json:"name"`
		Tasks    []string `json:"tasks"`
		Produces []string `json:"produces"`
		Consumes []string `json:"consumes"`
		HandsTo  []string `json:"hands_to"`
		Reviews  []string `json:"reviews"`
	} `json:"agents"`
	Roles map[string]struct {
		Name              string   `json:"name"`
		Approves          []string `json:"approves"`
		ResolvesConflicts bool     `json:"resolves_conflicts"`
	} `json:"roles"`
	Artifacts map[string]struct {
		Producer         string `json:"producer"`
		RequiresApproval bool   `json:"requires_approval"`
	} `json:"artifacts"`
	Workflow struct {
		Terminal    []string `json:"terminal"`
		Transitions []struct {
			From string `json:"from"`
			To   string `json:"to"`
			On   string `json:"on"`
		} `json:"transitions"`
		Actors map[string][]struct {
			Agent string `json:"agent"`
			Task  string `json:"task"`
		} `json:"actors"`
	} `json:"workflow"`
	Context map[string]struct {
		From string `json:"from"`
	} `json:"context"`
}

// Config returns a pack's configuration tables (its CUE value config, exported beside
// the contract tables), or false when the pack has none.
func (dc *Decider) Config(pack string) (map[string]any, bool) {
	p, err := dc.contracts.Pack(pack)
	if err != nil || p == nil || p.Config == nil {
		return nil, false
	}
	return p.Config, true
}

// Waiting says what the workflow in st waits for now: WaitingAt at time.Now().
func (dc *Decider) Waiting(st *State) (*Waiting, error) {
	return dc.WaitingAt(context.Background(), st, time.Now())
}

// WaitingAt says what the workflow in st waits for at time at, the time every step is
// put to the policy at. It fails only when the bundle has no pack st.Pack or the
// policy cannot be evaluated. WaitingAt is safe for concurrent use.
func (dc *Decider) WaitingAt(ctx context.Context, st *State, at time.Time) (*Waiting, error) {
	d, err := dc.derive(st)
	if err != nil {
		return nil, err
	}
	w := &Waiting{WorkflowID: st.WorkflowID, TenantID: st.TenantID, Pack: st.Pack, Status: st.Status,
		Terminal: st.Terminal || slices.Contains(d.t.Workflow.Terminal, st.Status), StateVersion: st.StateVersion,
		At: at.UTC().Format(time.RFC3339Nano), Parties: []Party{}, Leads: []Lead{}}
	parties := d.parties
	c := checker{dc: dc, g: d.g, st: st, at: at, rootCauses: map[string]bool{}}
	var causes struct {
		RootCauses []string `json:"root_causes"`
	}
	for _, table := range []any{dc.contracts.Guardrails, d.raw} {
		if decodeVia(table, &causes) == nil {
			for _, code := range causes.RootCauses {
				c.rootCauses[code] = true
			}
		}
	}
	for i := range parties {
		if err := c.party(ctx, &parties[i]); err != nil {
			return nil, err
		}
	}
	d.g.waitsFor(parties)
	takes := false // whether the workflow takes anything (a terminal one may: an outcome)
	for _, p := range parties {
		takes = takes || len(p.Requests) > 0
	}
	for _, p := range parties {
		if !p.offStage && (!w.Terminal || takes) || len(p.Requests) > 0 {
			w.Parties = append(w.Parties, p)
		}
	}
	if w.Terminal {
		return w, nil
	}
	for _, tr := range d.t.Workflow.Transitions {
		if tr.From == st.Status && tr.On != "cancel" {
			w.Leads = append(w.Leads, Lead{To: tr.To, On: tr.On})
		}
	}
	return w, nil
}

// Actors says who may act on the workflow in st and what each may send as WaitingAt
// derives them, before any step is put to the policy: a step listed may still be
// refused, and an agent that only hands work to one acting now is listed too. It
// evaluates no policy, for lists of many workflows (the console's inbox).
func (dc *Decider) Actors(st *State) ([]Party, error) {
	d, err := dc.derive(st)
	if err != nil {
		return nil, err
	}
	return d.parties, nil
}

// derivation is what the contract tables and the state say of a workflow: its pack's
// tables and the parties that may act, with the steps derived for each.
type derivation struct {
	raw     map[string]any
	t       *packTables
	g       *guide
	parties []Party
}

// derive reads st.Pack's tables and derives who may act on the workflow in st.
func (dc *Decider) derive(st *State) (*derivation, error) {
	raw, ok := dc.Tables(st.Pack)
	if !ok {
		return nil, fmt.Errorf("engine: workflow %s is governed by pack %s, which this bundle does not have", st.WorkflowID, st.Pack)
	}
	var t packTables
	if err := decodeVia(raw, &t); err != nil {
		return nil, fmt.Errorf("engine: pack %s tables: %w", st.Pack, err)
	}
	var cfg struct {
		RequiredInputs map[string][]string `json:"required_inputs"`
	}
	if c, ok := dc.Config(st.Pack); ok {
		_ = decodeVia(c, &cfg) // a pack without required_inputs cites what its agents consume
	}
	g := guide{t: &t, st: st, required: cfg.RequiredInputs, handoffFields: map[string]bool{}}
	var statuses struct {
		Approved []string `json:"approved_statuses"`
	}
	_ = decodeVia(dc.contracts.Guardrails, &statuses) // without the table no version counts as approved
	g.approved = statuses.Approved
	if tpl, err := dc.Template(st.Pack, "handoff", TemplateOptions{}); err == nil {
		var fields map[string]any
		if json.Unmarshal(tpl.JSON(), &fields) == nil {
			for k := range fields {
				g.handoffFields[k] = true
			}
		}
	}
	var parties []Party
	seen := map[string]bool{}
	for _, a := range t.Workflow.Actors[st.Status] {
		if seen[a.Agent] {
			continue
		}
		seen[a.Agent] = true
		if _, isRole := t.Roles[a.Agent]; isRole {
			parties = append(parties, g.role(a.Agent, a.Task))
		} else {
			parties = append(parties, g.agent(a.Agent, a.Task))
		}
	}
	// Agents that hand work to an agent acting now (an enrichment, a clarification):
	// offered only what the policy takes.
	acting := len(parties)
	for _, name := range sortedNames(t.Agents) {
		if seen[name] {
			continue
		}
		for _, a := range parties[:acting] {
			if a.Type == "agent" && slices.Contains(t.Agents[name].HandsTo, a.ID) {
				seen[name] = true
				p := g.agent(name, "")
				// It adds to work in progress: never a new version of an approved one.
				p.Requests = slices.DeleteFunc(p.Requests, func(s Step) bool {
					v := g.latest(s.Output)
					return s.Kind != "handoff" || v != nil && slices.Contains(g.approved, v.Status)
				})
				p.offStage = true
				parties = append(parties, p)
				break
			}
		}
	}
	// Roles that approve the status as a stage, or resolve the open conflicts.
	for _, name := range sortedNames(t.Roles) {
		r := t.Roles[name]
		if !seen[name] && (slices.Contains(r.Approves, st.Status) || r.ResolvesConflicts && st.OpenConflicts > 0) {
			seen[name] = true
			parties = append(parties, g.role(name, ""))
		}
	}
	parties = append(parties, g.host(parties))
	return &derivation{raw: raw, t: &t, g: &g, parties: parties}, nil
}

// guide derives one workflow's steps from its pack's tables.
type guide struct {
	t        *packTables
	st       *State
	required map[string][]string
	// handoffFields are the fields of the pack's handoff request a template holds.
	handoffFields map[string]bool
	// approved are the artifact statuses that count as approved (core
	// guardrails.approved_statuses).
	approved []string
}

// latest is the latest recorded version of typ, nil when none is.
func (g *guide) latest(typ string) *ArtifactVersion {
	h := g.st.Artifacts[typ]
	if h == nil {
		return nil
	}
	return h.Versions[strconv.Itoa(h.Latest)]
}

// stale says whether v was made from a version that is no longer its type's latest,
// replaced by one not made from v: the work it rests on changed since. (A review's
// report made from v, and its next version, do not make v stale.)
func (g *guide) stale(v *ArtifactVersion) bool {
	for _, b := range v.BasedOn {
		l := g.latest(b.Type)
		if l == nil || l.Ref.Version <= b.Version {
			continue
		}
		downstream := false
		for _, lb := range l.BasedOn {
			downstream = downstream || lb.Type == v.Ref.Type
		}
		if !downstream {
			return true
		}
	}
	return false
}

// depth is how many versions lie upstream of ref along based_on.
func (g *guide) depth(ref ArtifactRef, n int) int {
	h := g.st.Artifacts[ref.Type]
	if h == nil || n > 32 {
		return 0
	}
	v := h.Versions[strconv.Itoa(ref.Version)]
	if v == nil {
		return 0
	}
	d := 0
	for _, b := range v.BasedOn {
		d = max(d, 1+g.depth(b, n+1))
	}
	return d
}

// current says whether every ref is its type's latest version.
func (g *guide) current(refs []ArtifactRef) bool {
	for _, ref := range refs {
		if l := g.latest(ref.Type); l == nil || l.Ref.Version != ref.Version {
			return false
		}
	}
	return true
}

// openDefect says whether a defect of typ is still open.
func (g *guide) openDefect(typ string) bool {
	for _, d := range g.st.Defects {
		if d.Status == "open" && d.Defect.Artifact == typ {
			return true
		}
	}
	return false
}

// awaiting says whether typ's latest version waits for a review or an approval.
func (g *guide) awaiting(typ string) bool {
	v := g.latest(typ)
	return v != nil && v.Status == "under_review"
}

// cite names the version of typ a request cites: the approved one when the type's
// contract requires approval, else the latest.
func (g *guide) cite(typ string) Citation {
	c := Citation{Type: typ}
	h := g.st.Artifacts[typ]
	if h == nil || h.Latest == 0 {
		c.Missing = "not recorded yet"
		return c
	}
	n := h.Latest
	if g.t.Artifacts[typ].RequiresApproval {
		if h.Approved == 0 {
			c.Missing = fmt.Sprintf("v%d is not approved: the contract requires an approved version", h.Latest)
			return c
		}
		n = h.Approved
	}
	return g.citeVersion(typ, n)
}

func (g *guide) citeVersion(typ string, n int) Citation {
	v := g.st.Artifacts[typ].Versions[strconv.Itoa(n)]
	if v == nil {
		return Citation{Type: typ, Missing: fmt.Sprintf("v%d is not recorded", n)}
	}
	ref := v.Ref
	return Citation{Type: typ, Ref: &ref, Placeholder: fmt.Sprintf("${ref:%s@%d}", typ, n), Status: v.Status}
}

// agent lists what an agent acting in the status may send: a review of the versions
// awaiting its review, else a handoff of each output it has still to deliver (none
// recorded, returned, with an open defect, or made from a version since replaced), in
// the order it produces them, or of every output when none is pending review (work sent
// back after it was accepted). With a task graph, each handoff completes one of the
// agent's ready or running tasks, and the agent dispatches the ready tasks of the agents
// it hands work to (a handoff without output). Its failures are the host's to report.
func (g *guide) agent(id, task string) Party {
	a := g.t.Agents[id]
	p := Party{ID: id, Type: "agent", Name: a.Name, Task: task, Requests: []Step{}}
	statusTask := task
	if !slices.Contains(a.Tasks, task) {
		task = "" // not a task_type the agent may give
	}
	if cite := g.reviewable(id, a.Reviews); len(cite) > 0 {
		p.Requests = append(p.Requests, Step{Kind: "review", Field: "artifacts", Cite: cite,
			Answers: []string{"ACCEPT", "REVISE", "REASSIGN", "REJECT", "ESCALATE"}})
		p.Requests = append(p.Requests, g.failures(id, statusTask)...)
		return p
	}
	if len(a.HandsTo) == 0 {
		p.Requests = append(p.Requests, g.failures(id, statusTask)...)
		return p
	}
	var outs, delivered []string
	pending := false
	for _, out := range a.Produces {
		v := g.latest(out)
		if v == nil || v.Status == "revision_required" || v.Status == "rejected" || v.Status == "draft" || g.openDefect(out) || g.stale(v) {
			outs = append(outs, out)
			continue
		}
		pending = pending || v.Status == "under_review"
		delivered = append(delivered, fmt.Sprintf("%s v%d %s", out, v.Ref.Version, v.Status))
	}
	if len(outs) == 0 && !pending {
		// Work sent back to the agent whose outputs were accepted (a defect upstream,
		// a delivery to make again): each output gets a new version.
		outs = a.Produces
	}
	tasks := g.tasksOf(id, "ready", "running", "unknown")
	redo := false
	if len(g.st.Tasks) > 0 {
		// With a task graph, a task's result may be any output of the agent's (the
		// policy says which), and a task done or stopped may be done again (an
		// authorization verified again).
		outs = a.Produces
		if len(tasks) == 0 {
			tasks, redo = g.tasksOf(id, "done", "failed", "blocked"), true
		}
	}
	// While the effect of a version waits for its outcome, the version is not handed again.
	outs = slices.DeleteFunc(slices.Clone(outs), func(out string) bool {
		v := g.latest(out)
		return v != nil && g.unsettled(v)
	})
	taskIDs := tasks
	if len(taskIDs) == 0 {
		taskIDs = []string{""}
	}
	for _, taskID := range taskIDs {
		for _, out := range outs {
			for _, target := range g.targets(id, out, a.HandsTo) {
				s := g.handoff(id, target, out, a.Consumes)
				s.TaskType, s.TaskID, s.redo = task, taskID, redo
				g.restate(&s, a.Produces)
				for _, c := range s.Cite {
					if c.Ref == nil && slices.Contains(a.Produces, c.Type) {
						s.After = append(s.After, c.Type)
					}
				}
				p.Requests = append(p.Requests, s)
			}
		}
	}
	for _, target := range a.HandsTo {
		for _, taskID := range g.tasksOf(target, "ready") {
			p.Requests = append(p.Requests, Step{Kind: "handoff", Target: target, TaskType: task, TaskID: taskID,
				Field: "input_artifacts", Cite: []Citation{}, MayCite: g.consumed(a.Consumes)})
		}
	}
	if len(p.Requests) == 0 && len(delivered) > 0 {
		p.Note = "its outputs are delivered (" + strings.Join(delivered, ", ") + "): nothing to send until they return"
	}
	p.Requests = append(p.Requests, g.failures(id, statusTask)...)
	return p
}

// failures are the failures an agent may report of its own tasks (the policy says
// whether it may, or only the host): of the task graph when the workflow has one, else
// its task in the status.
func (g *guide) failures(id, task string) []Step {
	tasks := g.tasksOf(id, "running", "unknown")
	if len(g.st.Tasks) == 0 && task != "" {
		tasks = []string{task}
	}
	var out []Step
	for _, t := range tasks {
		out = append(out, Step{Kind: "failure", Task: t, Agent: id})
	}
	return out
}

// unsettled says whether an effect of v is pending or of unknown outcome: an effect
// named after the version (id@vN) or one the version's meta names.
func (g *guide) unsettled(v *ArtifactVersion) bool {
	for id, e := range g.st.Effects {
		if e != "pending" && e != "unknown" {
			continue
		}
		if id == fmt.Sprintf("%s@v%d", v.Ref.ID, v.Ref.Version) {
			return true
		}
		for _, m := range v.Meta {
			if m == id {
				return true
			}
		}
	}
	return false
}

// restate gives a handoff that delivers the result of a task of the graph what it
// restates from the task's recorded assignment: the latest version, of a type the
// agent does not produce, whose content names the task (task_id) and holds fields of a
// handoff request. Those fields are restated as they are but task_id, state_version
// and the agents it names (a handoff names its own): a worker cannot change the
// objective or the criteria it was given. The versions the assignment was made from
// are cited again.
func (g *guide) restate(s *Step, produces []string) {
	if s.TaskID == "" || s.Output == "" {
		return
	}
	var found *ArtifactVersion
	fields := map[string]any{}
	for _, typ := range sortedNames(g.st.Artifacts) {
		if slices.Contains(produces, typ) {
			continue
		}
		for _, v := range g.st.Artifacts[typ].Versions {
			if v.Content["task_id"] != s.TaskID || found != nil && (v.RecordedAt < found.RecordedAt ||
				v.RecordedAt == found.RecordedAt && v.Ref.Version < found.Ref.Version) {
				continue
			}
			f := map[string]any{}
			for k, x := range v.Content {
				if id, ok := x.(string); g.handoffFields[k] && k != "task_id" && k != "state_version" && !(ok && g.party(id)) {
					f[k] = x
				}
			}
			if len(f) > 0 {
				found, fields = v, f
			}
		}
	}
	if found == nil {
		return
	}
	s.Restate = fields
	for _, b := range found.BasedOn {
		if b.Type == found.Ref.Type || slices.ContainsFunc(s.Cite, func(c Citation) bool { return c.Ref != nil && *c.Ref == b }) {
			continue
		}
		s.Cite = append(s.Cite, g.citeVersion(b.Type, b.Version))
		s.MayCite = slices.DeleteFunc(s.MayCite, func(c Citation) bool { return c.Type == b.Type })
	}
	s.Limitations = g.limitations(s.Cite)
}

// party says whether id names an agent or a role of the pack.
func (g *guide) party(id string) bool {
	_, agent := g.t.Agents[id]
	_, role := g.t.Roles[id]
	return agent || role
}

// tasksOf are the tasks of the workflow's task graph assigned to agent whose status is
// one of statuses, by id.
func (g *guide) tasksOf(agent string, statuses ...string) []string {
	var out []string
	for _, id := range sortedNames(g.st.Tasks) {
		if t := g.st.Tasks[id]; t != nil && t.Agent == agent && slices.Contains(statuses, t.Status) {
			out = append(out, id)
		}
	}
	return out
}

// consumed are the recorded versions of the types an agent consumes, to cite as it
// chooses.
func (g *guide) consumed(consumes []string) []Citation {
	var out []Citation
	for _, typ := range consumes {
		if g.st.Artifacts[typ] != nil {
			out = append(out, g.cite(typ))
		}
	}
	return out
}

// reviewable are the versions awaiting the agent's review: each type it reviews whose
// latest version is under review, and the latest versions of reviewed types those were
// made from.
func (g *guide) reviewable(id string, reviews []string) []Citation {
	var out []Citation
	named := map[string]bool{}
	add := func(typ string, n int) {
		if key := typ + "@" + strconv.Itoa(n); !named[key] {
			named[key] = true
			out = append(out, g.citeVersion(typ, n))
		}
	}
	for _, typ := range reviews {
		if g.awaiting(typ) && g.t.Artifacts[typ].Producer != id {
			add(typ, g.latest(typ).Ref.Version)
		}
	}
	for _, c := range slices.Clone(out) {
		for _, b := range g.st.Artifacts[c.Type].Versions[strconv.Itoa(c.Ref.Version)].BasedOn {
			if slices.Contains(reviews, b.Type) && g.latest(b.Type) != nil && g.latest(b.Type).Ref.Version == b.Version {
				add(b.Type, b.Version)
			}
		}
	}
	return out
}

// targets are the agents a handoff of out goes to: those of hands_to whose context
// package is taken from out first, then the others (a return to a predecessor, a
// validation): the policy says which it takes.
func (g *guide) targets(source, out string, handsTo []string) []string {
	var first, then []string
	for _, t := range handsTo {
		if slices.Contains(g.edgeTypes(source+">"+t), out) {
			first = append(first, t)
		} else {
			then = append(then, t)
		}
	}
	return append(first, then...)
}

// edgeOutputs are the types source produces whose context packages go to target, in
// the order source produces them.
func (g *guide) edgeOutputs(source, target string) []string {
	var outs []string
	types := g.edgeTypes(source + ">" + target)
	for _, typ := range g.t.Agents[source].Produces {
		if slices.Contains(types, typ) {
			outs = append(outs, typ)
		}
	}
	return outs
}

// edgeTypes are the artifact types the context packages of an edge "source>target" are
// taken from (a package key may name its type after the edge: "a>b/TYPE", "a>b:TYPE").
func (g *guide) edgeTypes(edge string) []string {
	var out []string
	for _, k := range sortedNames(g.t.Context) {
		if k == edge || strings.HasPrefix(k, edge+"/") || strings.HasPrefix(k, edge+":") {
			out = append(out, g.t.Context[k].From)
		}
	}
	return out
}

// handoff is one handoff of out: the inputs its type requires (the pack's
// required_inputs), else the recorded types the source consumes whose contract requires
// approval; the other recorded types it consumes may be cited too.
func (g *guide) handoff(source, target, out string, consumes []string) Step {
	s := Step{Kind: "handoff", Target: target, Output: out, Version: 1, Field: "input_artifacts", Cite: []Citation{}}
	if h := g.st.Artifacts[out]; h != nil && h.Latest > 0 {
		s.Version, s.Supersedes, s.OutputID = h.Latest+1, h.Latest, h.ID
	}
	required, listed := g.required[out]
	for _, typ := range required {
		s.Cite = append(s.Cite, g.cite(typ))
	}
	for _, typ := range consumes {
		if slices.Contains(required, typ) || g.st.Artifacts[typ] == nil {
			continue
		}
		if v := g.latest(typ); v != nil && (v.Status == "revision_required" || v.Status == "rejected") {
			continue // returned: its new version is built on, not this one
		}
		if listed || !g.t.Artifacts[typ].RequiresApproval {
			s.MayCite = append(s.MayCite, g.cite(typ))
		} else {
			s.Cite = append(s.Cite, g.cite(typ))
		}
	}
	s.Limitations = g.limitations(s.Cite)
	return s
}

// limitations are the limitations recorded on the cited versions, each once.
func (g *guide) limitations(cs []Citation) []string {
	var out []string
	for _, c := range cs {
		if c.Ref == nil {
			continue
		}
		if v := g.st.Artifacts[c.Type].Versions[strconv.Itoa(c.Ref.Version)]; v != nil {
			for _, l := range v.Limitations {
				if !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// role lists what a person of a role may send: an approval of the stage, naming the
// versions of the types the role approves that await approval and were not made from a
// version since replaced (a record, such as a
// review report, when the last handoff brought it or it was made from one of them); a
// resolution of each open conflict
// when the role resolves conflicts.
func (g *guide) role(id, task string) Party {
	r := g.t.Roles[id]
	p := Party{ID: id, Type: "human", Name: r.Name, Task: task, Requests: []Step{}}
	stage := ""
	if slices.Contains(r.Approves, g.st.Status) {
		stage = g.st.Status
	}
	var cite []Citation
	included := map[string]bool{}
	for _, typ := range r.Approves {
		if _, isType := g.t.Artifacts[typ]; isType && g.awaiting(typ) && g.t.Artifacts[typ].RequiresApproval && !g.stale(g.latest(typ)) {
			c := g.citeVersion(typ, g.latest(typ).Ref.Version)
			cite = append(cite, c)
			included[typ+"@"+strconv.Itoa(c.Ref.Version)] = true
		}
	}
	// A record the role approves that awaits approval: the one the last handoff brought
	// the role, or one made from a version it approves now (a review's report).
	var brought []string
	if n := len(g.st.RecentEdges); n > 0 && strings.HasSuffix(g.st.RecentEdges[n-1], ">"+id) {
		brought = g.edgeTypes(g.st.RecentEdges[n-1])
	}
	for _, typ := range r.Approves {
		if _, isType := g.t.Artifacts[typ]; !isType || !g.awaiting(typ) || g.t.Artifacts[typ].RequiresApproval {
			continue
		}
		v := g.latest(typ)
		made := slices.Contains(brought, typ)
		for _, b := range v.BasedOn {
			made = made || included[b.Type+"@"+strconv.Itoa(b.Version)]
		}
		if made {
			cite = append(cite, g.citeVersion(typ, v.Ref.Version))
		}
	}
	answers := []string{"APPROVE", "REQUEST_REVISION", "REJECT"}
	if stage != "" || len(cite) > 0 {
		p.Requests = append(p.Requests, Step{Kind: "approval", Stage: stage, Field: "artifacts", Cite: cite, Answers: answers})
	}
	if len(cite) == 0 {
		// Nothing awaits approval: the versions the role's latest stage approval
		// recorded (the last recorded, then the furthest down the artifact chain), when
		// they are still the latest, may be approved again (after an escalation).
		newest, deepest, again := "", -1, Step{}
		for _, name := range r.Approves {
			rec := g.st.Approvals[name]
			if _, isType := g.t.Artifacts[name]; isType || name == stage || rec == nil || rec.Decision != "APPROVE" || len(rec.Artifacts) == 0 || !g.current(rec.Artifacts) {
				continue
			}
			at, depth := "", 0
			for _, ref := range rec.Artifacts {
				at = max(at, g.latest(ref.Type).RecordedAt)
				depth = max(depth, g.depth(ref, 0))
			}
			if at < newest || at == newest && depth <= deepest {
				continue
			}
			newest, deepest = at, depth
			again = Step{Kind: "approval", Stage: name, Field: "artifacts", Answers: answers}
			for _, ref := range rec.Artifacts {
				again.Cite = append(again.Cite, g.citeVersion(ref.Type, ref.Version))
			}
		}
		if again.Kind != "" {
			p.Requests = append(p.Requests, again)
		}
	}
	if r.ResolvesConflicts {
		for _, id := range sortedNames(g.st.Conflicts) {
			c := g.st.Conflicts[id]
			if c.Status != "open" {
				continue
			}
			s := Step{Kind: "resolution", ConflictID: id, Field: "chosen"}
			for _, ref := range c.Artifacts {
				s.MayCite = append(s.MayCite, g.citeVersion(ref.Type, ref.Version))
			}
			p.Requests = append(p.Requests, s)
		}
	}
	p.Requests = append(p.Requests, Step{Kind: "cancel"}) // a person may cancel, as the host may
	return p
}

// host is what the host (an actor of type system) may send: the outcome of each
// effect not acknowledged yet (pending, of unknown outcome, or failed and tried again), the failure of each task of the agents
// acting now (of the task graph when the workflow has one), and cancel.
func (g *guide) host(parties []Party) Party {
	p := Party{ID: "host", Type: "system", Requests: []Step{}}
	for _, id := range sortedNames(g.st.Effects) {
		if g.st.Effects[id] != "acknowledged" {
			p.Requests = append(p.Requests, Step{Kind: "outcome", EffectID: id, Answers: slices.Clone(outcomeResults)})
		}
	}
	for _, a := range parties {
		if a.Type == "agent" {
			p.Requests = append(p.Requests, g.failures(a.ID, a.Task)...)
		}
	}
	p.Requests = append(p.Requests, Step{Kind: "cancel"})
	return p
}

// outcomeResults are the results an outcome reports (core #Outcome).
var outcomeResults = []string{"acknowledged", "failed", "unknown"}

// waitsFor notes, on an agent or a role that has nothing the policy accepts now, what
// the workflow waits for instead: the outcome of an effect the host reports (a human
// handoff a person takes).
func (g *guide) waitsFor(parties []Party) {
	var outcomes []string
	for _, p := range parties {
		for _, s := range p.Requests {
			if p.Type == "system" && s.Kind == "outcome" {
				outcomes = append(outcomes, s.EffectID)
			}
		}
	}
	for i := range parties {
		p := &parties[i]
		if p.Type == "system" || len(p.Requests) > 0 || p.Note != "" {
			continue
		}
		p.Note = "nothing it sends is accepted now"
		if len(outcomes) > 0 {
			p.Note += "; the workflow waits for the outcome of " + strings.Join(outcomes, ", ") + ", which the host reports"
		}
	}
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
