package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// TestTemplateValidates makes the plain JSON skeleton of every kind of every shipped
// pack, and of a handoff from every source to every agent it hands work to with every
// output type it hands there, fills its ${ref:...} placeholders and requires the
// engine's contract validation to accept it.
func TestTemplateValidates(t *testing.T) {
	dc := shippedDecider(t)
	kinds := []string{"start", "handoff", "review", "approval", "failure", "resolution", "outcome", "cancel"}
	for _, p := range dc.Packs() {
		var cases []engine.TemplateOptions
		tables, ok := dc.Tables(p.Name)
		require.True(t, ok)
		var info struct {
			Agents map[string]struct {
				Produces []string `json:"produces"`
				HandsTo  []string `json:"hands_to"`
			} `json:"agents"`
		}
		raw, err := json.Marshal(tables)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &info))
		for source, a := range info.Agents {
			for _, target := range a.HandsTo {
				for _, out := range a.Produces {
					cases = append(cases, engine.TemplateOptions{Target: target, Source: source, Output: out})
				}
			}
		}
		for _, kind := range kinds {
			t.Run(p.Name+"/"+kind, func(t *testing.T) {
				tpl, err := dc.Template(p.Name, kind, engine.TemplateOptions{})
				require.NoError(t, err)
				requireValid(t, dc, p.Name, kind, tpl)
			})
		}
		for _, o := range cases {
			t.Run(p.Name+"/handoff/"+o.Source+">"+o.Target+"/"+o.Output, func(t *testing.T) {
				tpl, err := dc.Template(p.Name, "handoff", o)
				require.NoError(t, err)
				requireValid(t, dc, p.Name, "handoff", tpl)
				var req struct {
					Source string `json:"source_agent"`
					Target string `json:"target_agent"`
					Output struct {
						Type string `json:"type"`
					} `json:"output"`
				}
				require.NoError(t, json.Unmarshal(tpl.JSON(), &req))
				assert.Equal(t, [3]string{o.Source, o.Target, o.Output}, [3]string{req.Source, req.Target, req.Output.Type})
			})
		}
	}
}

func requireValid(t *testing.T, dc *engine.Decider, pack, kind string, tpl *engine.Template) {
	t.Helper()
	body := fillRefs(t, string(tpl.JSON()))
	st := &engine.State{WorkflowID: "workflow_id", TenantID: "tenant_id", Pack: pack, Status: "X"}
	if kind == "start" {
		st = nil
	}
	verrs, err := dc.Validate(body, st)
	require.NoError(t, err)
	assert.Empty(t, verrs, "got validation errors for\n%s", body)
}

// fillRefs replaces every "${ref:TYPE@latest}" with a reference to version 1 of TYPE.
func fillRefs(t *testing.T, s string) []byte {
	t.Helper()
	for {
		i := strings.Index(s, `"${ref:`)
		if i < 0 {
			return []byte(s)
		}
		j := strings.Index(s[i:], `@latest}"`)
		require.Positive(t, j, s)
		typ := s[i+len(`"${ref:`) : i+j]
		ref := `{"id": "` + strings.ToLower(typ) + `", "type": "` + typ + `", "version": 1, "hash": "sha256:` + strings.Repeat("0", 64) + `"}`
		s = s[:i] + ref + s[i+j+len(`@latest}"`):]
	}
}

// TestTemplateActor gives each kind the actor the core guardrails allow: a person with
// a role that approves for an approval, one that resolves conflicts for a resolution,
// an agent for a review and a handoff, the host for the rest.
func TestTemplateActor(t *testing.T) {
	dc := shippedDecider(t)
	for _, c := range []struct {
		kind, typ, role string
	}{
		{"approval", "human", "campaign_approver"},
		{"resolution", "human", ""},
		{"review", "agent", ""},
		{"handoff", "agent", ""},
		{"start", "system", ""},
		{"failure", "system", ""},
		{"outcome", "system", ""},
		{"cancel", "system", ""},
	} {
		tpl, err := dc.Template("campaign", c.kind, engine.TemplateOptions{})
		require.NoError(t, err)
		var req struct {
			OrganizationID *string `json:"organization_id"`
			Actor          struct {
				Type  string   `json:"type"`
				Roles []string `json:"roles"`
			} `json:"actor"`
		}
		require.NoError(t, json.Unmarshal(tpl.JSON(), &req))
		assert.Equal(t, c.typ, req.Actor.Type, c.kind)
		assert.NotNil(t, req.OrganizationID, "%s: organization_id is left out", c.kind)
		if c.role != "" {
			assert.Equal(t, []string{c.role}, req.Actor.Roles, c.kind)
		}
	}
}

// TestTemplateListItems shows one item of every list in the commented form, with its
// fields, and leaves a list that may be empty empty in the plain form.
func TestTemplateListItems(t *testing.T) {
	dc := shippedDecider(t)
	tpl, err := dc.Template("campaign", "review", engine.TemplateOptions{})
	require.NoError(t, err)
	assert.Contains(t, tpl.JSONC(), "\"defects\": [\n    {\n")
	assert.Contains(t, tpl.JSONC(), `"severity": "S1"`)
	assert.Contains(t, tpl.JSONC(), `"artifacts": [`+"\n    \"${ref:TYPE@latest}\"\n  ]")
	var req map[string]any
	require.NoError(t, json.Unmarshal(tpl.JSON(), &req))
	assert.Equal(t, []any{}, req["defects"])
	assert.Equal(t, []any{"${ref:TYPE@latest}"}, req["artifacts"], "a list that may not be empty keeps its item")
}

func TestTemplateUnknownNames(t *testing.T) {
	dc := shippedDecider(t)
	for _, c := range []struct {
		pack, kind string
		opts       engine.TemplateOptions
		name       string
		known      string
	}{
		{"vidoe", "start", engine.TemplateOptions{}, "vidoe", "video"},
		{"video", "hadnoff", engine.TemplateOptions{}, "hadnoff", "handoff"},
		{"video", "handoff", engine.TemplateOptions{Target: "screenwritr"}, "screenwritr", "screenwriter"},
	} {
		_, err := dc.Template(c.pack, c.kind, c.opts)
		var te *engine.TemplateError
		require.True(t, errors.As(err, &te), "%v", err)
		assert.Equal(t, c.name, te.Name)
		assert.True(t, slices.Contains(te.Known, c.known), "%v", te.Known)
	}
}

func shippedDecider(t *testing.T) *engine.Decider {
	t.Helper()
	dc, err := sharedDecider()
	require.NoError(t, err)
	return dc
}

// sharedDecider compiles the shipped bundle once for the tests that only read it: each
// pack's policies then compile once per test binary rather than once per test.
var sharedDecider = sync.OnceValues(func() (*engine.Decider, error) {
	return engine.NewDecider(context.Background(), engine.DeciderOptions{LazyPolicies: true})
})
