package guide

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// WaitingAt says what the workflow in st waits for at time at, the time every step is
// put to the policy at: each step derived is decided through pipe as a dry run. It fails
// only when the bundle has no pack st.Pack or the policy cannot be evaluated. WaitingAt
// is safe for concurrent use.
func WaitingAt(ctx context.Context, pipe *pipeline.Pipeline, st *State, at time.Time) (*Waiting, error) {
	cc := pipe.Contracts()
	d, err := derive(cc, st)
	if err != nil {
		return nil, err
	}
	w := &Waiting{WorkflowID: st.WorkflowID, TenantID: st.TenantID, Pack: st.Pack, Status: st.Status,
		Terminal: st.Terminal || slices.Contains(d.t.Workflow.Terminal, st.Status), StateVersion: st.StateVersion,
		At: at.UTC().Format(time.RFC3339Nano), Parties: []Party{}, Leads: []Lead{}}
	parties := d.parties
	c := checker{pipe: pipe, g: d.g, st: st, at: at, rootCauses: map[string]bool{}}
	var causes struct {
		RootCauses []string `json:"root_causes"`
	}
	for _, table := range []any{cc.Guardrails, d.raw} {
		if decodeVia(table, &causes) == nil {
			for _, code := range causes.RootCauses {
				c.rootCauses[code] = true
			}
		}
	}
	for i := range parties {
		if err := c.party(ctx, &parties[i], d.offStage[i]); err != nil {
			return nil, err
		}
	}
	d.g.waitsFor(parties)
	takes := false // whether the workflow takes anything (a terminal one may: an outcome)
	for _, p := range parties {
		takes = takes || len(p.Requests) > 0
	}
	for i, p := range parties {
		if !d.offStage[i] && (!w.Terminal || takes) || len(p.Requests) > 0 {
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
func Actors(cc *contract.Contracts, st *State) ([]Party, error) {
	d, err := derive(cc, st)
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
	g       *deriver
	parties []Party
	// offStage are the parties (by index) of agents not acting in the status, which
	// hand work to one that is: listed only when the policy takes something of them.
	offStage map[int]bool
}

// derive reads st.Pack's tables and derives who may act on the workflow in st.
func derive(cc *contract.Contracts, st *State) (*derivation, error) {
	pc, err := cc.Pack(st.Pack)
	if err != nil || pc == nil {
		return nil, fmt.Errorf("engine: workflow %s is governed by pack %s, which this bundle does not have", st.WorkflowID, st.Pack)
	}
	raw := pc.Tables
	var t packTables
	if err := decodeVia(raw, &t); err != nil {
		return nil, fmt.Errorf("engine: pack %s tables: %w", st.Pack, err)
	}
	var cfg struct {
		RequiredInputs map[string][]string `json:"required_inputs"`
	}
	if pc.Config != nil {
		_ = decodeVia(pc.Config, &cfg) // a pack without required_inputs cites what its agents consume
	}
	g := deriver{t: &t, st: st, required: cfg.RequiredInputs, handoffFields: map[string]bool{}, redone: map[string]bool{}}
	var statuses struct {
		Approved []string `json:"approved_statuses"`
	}
	_ = decodeVia(cc.Guardrails, &statuses) // without the table no version counts as approved
	g.approved = statuses.Approved
	if tpl, err := TemplateFor(cc, st.Pack, "handoff", TemplateOptions{}); err == nil {
		var fields map[string]any
		if json.Unmarshal(tpl.JSON(), &fields) == nil {
			for k := range fields {
				g.handoffFields[k] = true
			}
		}
	}
	var parties []Party
	offStage := map[int]bool{}
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
				offStage[len(parties)] = true
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
	return &derivation{raw: raw, t: &t, g: &g, parties: parties, offStage: offStage}, nil
}
