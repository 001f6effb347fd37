package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Waiting is what a workflow waits for: who may act in its status and, for each, the
// requests the pack's contract accepts there with the recorded versions each must cite.
// It is derived from the pack's contract tables (agents and their permissions, roles and
// what they approve, actors per status, transitions, artifact contracts, context
// packages and the pack's required_inputs configuration) and the workflow's state; the
// policy still decides every request.
type Waiting struct {
	WorkflowID   string `json:"workflow_id"`
	TenantID     string `json:"tenant_id"`
	Pack         string `json:"pack"`
	Status       string `json:"status"`
	Terminal     bool   `json:"terminal"`
	StateVersion uint64 `json:"state_version"`
	// Parties are who may act now: agents and human roles of the status, then the host.
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
}

// Step is one request a party may send.
type Step struct {
	Kind string `json:"kind"`
	// Target is a handoff's target_agent; Output the artifact type it delivers, at
	// Version (Supersedes the latest recorded version, when there is one).
	Target     string `json:"target,omitempty"`
	Output     string `json:"output,omitempty"`
	Version    int    `json:"version,omitempty"`
	Supersedes int    `json:"supersedes,omitempty"`
	// Stage is an approval's stage; Answers the decisions a person may give, or the
	// verdicts a reviewer may give.
	Stage   string   `json:"stage,omitempty"`
	Answers []string `json:"answers,omitempty"`
	// Task is a failure's task (the agent's task in the status).
	Task string `json:"task,omitempty"`
	// ConflictID is a resolution's conflict.
	ConflictID string `json:"conflict_id,omitempty"`
	// EffectID is an outcome's effect.
	EffectID string `json:"effect_id,omitempty"`
	// Field is the request field Cite goes in: input_artifacts, artifacts or chosen.
	Field string `json:"field,omitempty"`
	// After are the outputs of the same party this handoff needs recorded first: the
	// order of its steps.
	After []string `json:"after,omitempty"`
	// Cite are the versions the request must name; MayCite those it may name too.
	Cite    []Citation `json:"cite,omitempty"`
	MayCite []Citation `json:"may_cite,omitempty"`
}

// Citation is one artifact version to name in a request: the recorded reference and
// the ${ref:TYPE@N} placeholder scenarios use for it. Ref is nil when no version of
// Type is recorded (Missing says what is missing).
type Citation struct {
	Type        string       `json:"type"`
	Ref         *ArtifactRef `json:"ref,omitempty"`
	Placeholder string       `json:"placeholder,omitempty"`
	Missing     string       `json:"missing,omitempty"`
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
	p, err := dc.contracts.pack(pack)
	if err != nil || p == nil || p.config == nil {
		return nil, false
	}
	return p.config, true
}

// Waiting says what the workflow in st waits for. It fails only when the bundle has no
// pack st.Pack. Waiting is safe for concurrent use.
func (dc *Decider) Waiting(st *State) (*Waiting, error) {
	raw, ok := dc.Tables(st.Pack)
	if !ok {
		return nil, fmt.Errorf("engine: workflow %s is governed by pack %s, which this bundle does not have", st.WorkflowID, st.Pack)
	}
	var t packTables
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: pack %s tables: %w", st.Pack, err)
	}
	var cfg struct {
		RequiredInputs map[string][]string `json:"required_inputs"`
	}
	if c, ok := dc.Config(st.Pack); ok {
		if b, err := json.Marshal(c); err == nil {
			_ = json.Unmarshal(b, &cfg) // a pack without required_inputs cites what its agents consume
		}
	}
	w := &Waiting{WorkflowID: st.WorkflowID, TenantID: st.TenantID, Pack: st.Pack, Status: st.Status,
		Terminal: st.Terminal || slices.Contains(t.Workflow.Terminal, st.Status), StateVersion: st.StateVersion,
		Parties: []Party{}, Leads: []Lead{}}
	if w.Terminal {
		return w, nil
	}
	g := guide{t: &t, st: st, required: cfg.RequiredInputs}
	seen := map[string]bool{}
	for _, a := range t.Workflow.Actors[st.Status] {
		if seen[a.Agent] {
			continue
		}
		seen[a.Agent] = true
		if _, isRole := t.Roles[a.Agent]; isRole {
			w.Parties = append(w.Parties, g.role(a.Agent, a.Task))
		} else {
			w.Parties = append(w.Parties, g.agent(a.Agent, a.Task))
		}
	}
	// Roles that approve the status as a stage, or resolve the open conflicts.
	for _, name := range sortedNames(t.Roles) {
		r := t.Roles[name]
		if !seen[name] && (slices.Contains(r.Approves, st.Status) || r.ResolvesConflicts && st.OpenConflicts > 0) {
			seen[name] = true
			w.Parties = append(w.Parties, g.role(name, ""))
		}
	}
	w.Parties = append(w.Parties, g.host())
	for _, tr := range t.Workflow.Transitions {
		if tr.From == st.Status && tr.On != "cancel" {
			w.Leads = append(w.Leads, Lead{To: tr.To, On: tr.On})
		}
	}
	return w, nil
}

// guide derives one workflow's steps from its pack's tables.
type guide struct {
	t        *packTables
	st       *State
	required map[string][]string
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
	return Citation{Type: typ, Ref: &ref, Placeholder: fmt.Sprintf("${ref:%s@%d}", typ, n)}
}

// agent lists what an agent acting in the status may send: a review of the versions
// awaiting its review, else a handoff of each output it has still to deliver (none
// recorded, returned, with an open defect, or made from a version since replaced), in the order it produces them, or of
// every output when none is pending review (work sent back after it was accepted); and
// a failure of its task.
func (g *guide) agent(id, task string) Party {
	a := g.t.Agents[id]
	p := Party{ID: id, Type: "agent", Name: a.Name, Task: task, Requests: []Step{}}
	if cite := g.reviewable(id, a.Reviews); len(cite) > 0 {
		p.Requests = append(p.Requests, Step{Kind: "review", Field: "artifacts", Cite: cite,
			Answers: []string{"ACCEPT", "REVISE", "REASSIGN", "REJECT", "ESCALATE"}})
	} else if len(a.HandsTo) > 0 {
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
		for _, out := range outs {
			for _, target := range g.targets(id, out, a.HandsTo) {
				s := g.handoff(id, target, out, a.Consumes)
				for _, c := range s.Cite {
					if c.Ref == nil && slices.Contains(a.Produces, c.Type) {
						s.After = append(s.After, c.Type)
					}
				}
				p.Requests = append(p.Requests, s)
			}
		}
		if len(p.Requests) == 0 && len(delivered) > 0 {
			p.Note = "its outputs are delivered (" + strings.Join(delivered, ", ") + "): nothing to send until they return"
		}
	}
	p.Requests = append(p.Requests, Step{Kind: "failure", Task: task})
	return p
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
// package is taken from out, else every one.
func (g *guide) targets(source, out string, handsTo []string) []string {
	var to []string
	for _, t := range handsTo {
		if slices.Contains(g.edgeTypes(source+">"+t), out) {
			to = append(to, t)
		}
	}
	if len(to) == 0 {
		return handsTo
	}
	return to
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
		s.Version, s.Supersedes = h.Latest+1, h.Latest
	}
	required, listed := g.required[out]
	for _, typ := range required {
		s.Cite = append(s.Cite, g.cite(typ))
	}
	for _, typ := range consumes {
		if slices.Contains(required, typ) || g.st.Artifacts[typ] == nil {
			continue
		}
		if listed || !g.t.Artifacts[typ].RequiresApproval {
			s.MayCite = append(s.MayCite, g.cite(typ))
		} else {
			s.Cite = append(s.Cite, g.cite(typ))
		}
	}
	return s
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
	if len(cite) == 0 {
		// Nothing awaits approval: the versions the role's latest stage approval
		// recorded (the last recorded, then the furthest down the artifact chain), when
		// they are still the latest, may be approved again (after an escalation).
		newest, deepest := "", -1
		for _, name := range r.Approves {
			rec := g.st.Approvals[name]
			if _, isType := g.t.Artifacts[name]; isType || rec == nil || rec.Decision != "APPROVE" || len(rec.Artifacts) == 0 || !g.current(rec.Artifacts) {
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
			newest, deepest, stage, cite = at, depth, name, nil
			for _, ref := range rec.Artifacts {
				cite = append(cite, g.citeVersion(ref.Type, ref.Version))
			}
		}
	}
	if stage != "" || len(cite) > 0 {
		p.Requests = append(p.Requests, Step{Kind: "approval", Stage: stage, Field: "artifacts", Cite: cite,
			Answers: []string{"APPROVE", "REQUEST_REVISION", "REJECT"}})
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
	if len(p.Requests) == 0 {
		p.Note = "nothing awaits this role's approval"
	}
	return p
}

// host is what the host (an actor of type system) may send: the outcome of each
// pending effect or effect of unknown outcome, and cancel.
func (g *guide) host() Party {
	p := Party{ID: "host", Type: "system", Requests: []Step{}}
	for _, id := range sortedNames(g.st.Effects) {
		if e := g.st.Effects[id]; e == "pending" || e == "unknown" {
			p.Requests = append(p.Requests, Step{Kind: "outcome", EffectID: id})
		}
	}
	p.Requests = append(p.Requests, Step{Kind: "cancel"})
	return p
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
