package console

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

// pack is what the console reads of a pack's contract tables: its human roles, who acts
// in each status, and its state machine.
type pack struct {
	// waiting says what the policy takes of a workflow now (engine.Decider.Waiting);
	// parties says who may act on it, without asking the policy (engine.Decider.Actors).
	waiting     func(*engine.State) (*engine.Waiting, error)
	parties     func(*engine.State) ([]engine.Party, error)
	roles       map[string]role
	agents      map[string]any     // the pack's agents, by name
	actors      map[string][]actor // status → who acts there
	statuses    []string
	terminal    []string
	initial     string
	transitions []transition
}

type role struct {
	Name              string   `json:"name"`
	Approves          []string `json:"approves"`
	ResolvesConflicts bool     `json:"resolves_conflicts"`
}

type actor struct {
	Agent string `json:"agent"`
	Task  string `json:"task"`
}

type transition struct {
	From string `json:"from"`
	To   string `json:"to"`
	On   string `json:"on"`
}

// packOf reads a pack's tables; ok is false for a pack the bundle does not have.
func (c *Console) packOf(name string) (*pack, bool) {
	dc := c.e.Decider() // one bundle for all of the pack's parts
	t, ok := dc.Tables(name)
	if !ok {
		return nil, false
	}
	p := pack{waiting: dc.Waiting, parties: dc.Actors}
	if !decodeTable(t["roles"], &p.roles) || !decodeTable(t["agents"], &p.agents) {
		return nil, false
	}
	var wf struct {
		Actors      map[string][]actor `json:"actors"`
		Statuses    []string           `json:"statuses"`
		Terminal    []string           `json:"terminal"`
		Initial     string             `json:"initial"`
		Transitions []transition       `json:"transitions"`
	}
	if !decodeTable(t["workflow"], &wf) {
		return nil, false
	}
	p.actors, p.statuses, p.terminal, p.initial, p.transitions = wf.Actors, wf.Statuses, wf.Terminal, wf.Initial, wf.Transitions
	return &p, true
}

// gate is a status where people act: what it is called and which roles act there.
type gate struct {
	Status string
	Title  string   // "Strategy approval", "Conflict review", ...
	Roles  []string // the pack's roles that may act at it
}

// gate returns the gate a workflow in st waits at: the human roles that may act on it
// (engine.Actors: the roles the contract puts at its status as its actors, or as roles
// that approve the status as a stage, and those that resolve conflicts while one is
// open). ok is false when no person acts there. No step is put to the policy here, so
// that the inbox costs no evaluation per workflow; the forms ask it (approvalStep).
func (p *pack) gate(st *engine.State) (gate, bool) {
	g := gate{Status: st.Status}
	parties, err := p.parties(st)
	if err != nil {
		return g, false
	}
	for _, party := range parties {
		if party.Type != "human" {
			continue
		}
		g.Roles = append(g.Roles, party.ID)
		if g.Title == "" && party.Task != "" {
			g.Title = words(party.Task)
		}
	}
	if st.OpenConflicts > 0 && g.Title == "" {
		g.Title = "Conflict review"
	}
	if g.Title == "" {
		g.Title = words(st.Status)
	}
	sort.Strings(g.Roles)
	g.Roles = slices.Compact(g.Roles)
	return g, len(g.Roles) > 0
}

// actingRoles are the roles of p's gate that roles hold.
func (g gate) actingRoles(roles []string) []string {
	var out []string
	for _, r := range g.Roles {
		if slices.Contains(roles, r) {
			out = append(out, r)
		}
	}
	return out
}

// words turns an identifier into words: "final_approval" → "Final approval".
func words(id string) string {
	s := strings.ToLower(strings.ReplaceAll(id, "_", " "))
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// decodeTable reads one of a pack's contract tables (a CUE export, held as Go values)
// into v through JSON: the shapes are the contract's.
func decodeTable(t any, v any) bool {
	b, err := json.Marshal(t)
	return err == nil && t != nil && json.Unmarshal(b, v) == nil
}
