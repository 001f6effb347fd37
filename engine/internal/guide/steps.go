package guide

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// deriver derives one workflow's steps from its pack's tables.
type deriver struct {
	t        *packTables
	st       *State
	required map[string][]string
	// handoffFields are the fields of the pack's handoff request a template holds.
	handoffFields map[string]bool
	// approved are the artifact statuses that count as approved (core
	// guardrails.approved_statuses).
	approved []string
	// redone are the agents whose handoffs with an output do tasks of the graph again.
	redone map[string]bool
}

// latest is the latest recorded version of typ, nil when none is.
func (g *deriver) latest(typ string) *ArtifactVersion {
	h := g.st.Artifacts[typ]
	if h == nil {
		return nil
	}
	return h.Versions[strconv.Itoa(h.Latest)]
}

// stale says whether v was made from a version that is no longer its type's latest,
// replaced by one not made from v: the work it rests on changed since. (A review's
// report made from v, and its next version, do not make v stale.)
func (g *deriver) stale(v *ArtifactVersion) bool {
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
func (g *deriver) depth(ref ArtifactRef, n int) int {
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
func (g *deriver) current(refs []ArtifactRef) bool {
	for _, ref := range refs {
		if l := g.latest(ref.Type); l == nil || l.Ref.Version != ref.Version {
			return false
		}
	}
	return true
}

// openDefect says whether a defect of typ is still open.
func (g *deriver) openDefect(typ string) bool {
	for _, d := range g.st.Defects {
		if d.Status == "open" && d.Defect.Artifact == typ {
			return true
		}
	}
	return false
}

// awaiting says whether typ's latest version waits for a review or an approval.
func (g *deriver) awaiting(typ string) bool {
	v := g.latest(typ)
	return v != nil && v.Status == "under_review"
}

// cite names the version of typ a request cites: the approved one when the type's
// contract requires approval, else the latest.
func (g *deriver) cite(typ string) Citation {
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

func (g *deriver) citeVersion(typ string, n int) Citation {
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
func (g *deriver) agent(id, task string) Party {
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
	if len(g.st.Tasks) > 0 {
		// With a task graph, a task's result may be any output of the agent's (the
		// policy says which), and a task done or stopped may be done again (an
		// authorization verified again).
		outs = a.Produces
		if len(tasks) == 0 {
			tasks = g.tasksOf(id, "done", "failed", "blocked")
			g.redone[id] = true
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
				s.TaskType, s.TaskID = task, taskID
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
func (g *deriver) failures(id, task string) []Step {
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

// redo says whether s, derived for agent, is a handoff of a task done before: the
// agent has a task graph and no task ready or running. It is offered only when the
// policy takes it plainly (an authorization verified again).
func (g *deriver) redo(agent string, s Step) bool {
	return s.Kind == "handoff" && s.Output != "" && g.redone[agent]
}

// unsettled says whether an effect of v is pending or of unknown outcome: an effect
// named after the version (id@vN) or one the version's meta names.
func (g *deriver) unsettled(v *ArtifactVersion) bool {
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
func (g *deriver) restate(s *Step, produces []string) {
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
func (g *deriver) party(id string) bool {
	_, agent := g.t.Agents[id]
	_, role := g.t.Roles[id]
	return agent || role
}

// tasksOf are the tasks of the workflow's task graph assigned to agent whose status is
// one of statuses, by id.
func (g *deriver) tasksOf(agent string, statuses ...string) []string {
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
func (g *deriver) consumed(consumes []string) []Citation {
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
func (g *deriver) reviewable(id string, reviews []string) []Citation {
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
func (g *deriver) targets(source, out string, handsTo []string) []string {
	var first, then []string
	for _, t := range handsTo {
		if slices.Contains(g.t.edgeTypes(source+">"+t), out) {
			first = append(first, t)
		} else {
			then = append(then, t)
		}
	}
	return append(first, then...)
}

// handoff is one handoff of out: the inputs its type requires (the pack's
// required_inputs), else the recorded types the source consumes whose contract requires
// approval; the other recorded types it consumes may be cited too.
func (g *deriver) handoff(source, target, out string, consumes []string) Step {
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
func (g *deriver) limitations(cs []Citation) []string {
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
func (g *deriver) role(id, task string) Party {
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
		brought = g.t.edgeTypes(g.st.RecentEdges[n-1])
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
func (g *deriver) host(parties []Party) Party {
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
func (g *deriver) waitsFor(parties []Party) {
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
