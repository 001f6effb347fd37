package guide

import (
	"fmt"
	"slices"

	"github.com/handoff-dev/handoff/engine/internal/contract"
)

// Acting names who Actors lists for the workflow in st (the agents and the human roles,
// the host aside) without deriving what each may send: a workflow's summary, written
// with every decision, needs the names only. The pack's tables are decoded once.
func Acting(cc *contract.Contracts, st *State) (agents, roles []string, err error) {
	t, err := decodedTables(cc, st.Pack)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: workflow %s is governed by pack %s: %w", st.WorkflowID, st.Pack, err)
	}
	seen := map[string]bool{}
	for _, a := range t.Workflow.Actors[st.Status] {
		if seen[a.Agent] {
			continue
		}
		seen[a.Agent] = true
		if _, isRole := t.Roles[a.Agent]; isRole {
			roles = append(roles, a.Agent)
		} else {
			agents = append(agents, a.Agent)
		}
	}
	acting := len(agents)
	for _, name := range sortedNames(t.Agents) {
		if !seen[name] && slices.ContainsFunc(agents[:acting], func(a string) bool { return slices.Contains(t.Agents[name].HandsTo, a) }) {
			seen[name] = true
			agents = append(agents, name)
		}
	}
	for _, name := range sortedNames(t.Roles) {
		r := t.Roles[name]
		if !seen[name] && (slices.Contains(r.Approves, st.Status) || r.ResolvesConflicts && st.OpenConflicts > 0) {
			seen[name] = true
			roles = append(roles, name)
		}
	}
	return agents, roles, nil
}

// decodedTables are a pack's tables as the guide reads them, decoded on first use.
func decodedTables(cc *contract.Contracts, pack string) (*packTables, error) {
	if t, ok := cc.Decoded.Load(pack); ok {
		return t.(*packTables), nil
	}
	pc, err := cc.Pack(pack)
	if err != nil || pc == nil {
		return nil, fmt.Errorf("the bundle has no pack %s", pack)
	}
	var t packTables
	if err := decodeVia(pc.Tables, &t); err != nil {
		return nil, fmt.Errorf("pack %s tables: %w", pack, err)
	}
	got, _ := cc.Decoded.LoadOrStore(pack, &t)
	return got.(*packTables), nil
}
