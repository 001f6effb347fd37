package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/service/client"
	handoffmcp "github.com/handoff-dev/handoff/service/mcp"
)

// TestSurface lists the tools, resources and prompts, reads them, and calls next,
// template, validate and explain on a campaign workflow; a request that is not the
// session's principal's, and a request the policy blocks, come back as refusals.
func TestSurface(t *testing.T) {
	ctx := context.Background()
	h := shared
	orchestrator := h.session(t, "acme/system/orchestrator")

	tools, err := orchestrator.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		assert.NotEmpty(t, tl.Description, tl.Name)
		assert.NotNil(t, tl.InputSchema, tl.Name)
	}
	assert.ElementsMatch(t, []string{"next", "template", "validate", "submit", "state", "explain"}, names)
	schema, err := json.Marshal(tools.Tools[0].InputSchema)
	require.NoError(t, err)
	assert.Contains(t, string(schema), `"required"`, "typed inputs")
	for _, tl := range tools.Tools {
		if tl.Name == "submit" || tl.Name == "validate" {
			out, err := json.Marshal(tl.OutputSchema)
			require.NoError(t, err)
			assert.Contains(t, string(out), `"outcome"`, "%s answers a typed verdict", tl.Name)
			assert.Contains(t, string(out), `"fix"`, tl.Name)
			assert.NotContains(t, string(out), `:true`, "%s: every property's schema an object, as clients require", tl.Name)
		}
	}

	res, err := orchestrator.ListResources(ctx, nil)
	require.NoError(t, err)
	uris := map[string]bool{}
	for _, r := range res.Resources {
		uris[r.URI] = true
	}
	for _, pack := range []string{"campaign", "assessment", "support", "video"} {
		assert.True(t, uris["handoff://packs/"+pack+"/contract"], pack)
		assert.True(t, uris["handoff://packs/"+pack+"/schemas/start"], pack)
	}
	templates, err := orchestrator.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Len(t, templates.ResourceTemplates, 2)
	contract, err := orchestrator.ReadResource(ctx, &sdk.ReadResourceParams{URI: "handoff://packs/campaign/contract"})
	require.NoError(t, err)
	assert.Contains(t, contract.Contents[0].Text, `"research_agent"`)
	kind, err := orchestrator.ReadResource(ctx, &sdk.ReadResourceParams{URI: "handoff://packs/video/schemas/handoff"})
	require.NoError(t, err)
	assert.Contains(t, kind.Contents[0].Text, `"$schema"`)
	_, err = orchestrator.ReadResource(ctx, &sdk.ReadResourceParams{URI: "handoff://packs/nopack/contract"})
	assert.Error(t, err, "an unknown pack is not found")

	prompts, err := orchestrator.ListPrompts(ctx, nil)
	require.NoError(t, err)
	require.Len(t, prompts.Prompts, 4)
	prompt, err := orchestrator.GetPrompt(ctx, &sdk.GetPromptParams{Name: "campaign-rules", Arguments: map[string]string{"as": "copywriter"}})
	require.NoError(t, err)
	rules := prompt.Messages[0].Content.(*sdk.TextContent).Text
	for _, want := range []string{"copywriter (Copywriting Agent)", "COPY_PACKAGE", "HUMAN_APPROVAL", "CTRL-1", "max_review_cycles", "ARTIFACT_NOT_APPROVED", `You act as "copywriter"`} {
		assert.Contains(t, rules, want)
	}

	// The start of a campaign, then what it waits for, a skeleton filled for it, a dry
	// run of the next request and an explanation of the start.
	sc, err := scenario.Load(conformanceScenarios["campaign"])
	require.NoError(t, err)
	p := scenario.NewPlayer(h.eng)
	body, err := p.Render(ctx, sc.Steps[0].Request)
	require.NoError(t, err)
	start := decode(t, body) // another workflow than the conformance test's
	start["request_id"], start["workflow_id"] = "req-surface-start", "wf-surface"
	body, err = json.Marshal(start)
	require.NoError(t, err)
	started := call(t, orchestrator, "submit", map[string]any{"request": start})
	var v handoffmcp.Verdict
	structured(t, started, &v)
	require.Equal(t, engine.Allow, v.Outcome, text(started))
	p.Observe(body, decisionOf(t, v))
	wf := v.WorkflowID

	next := call(t, orchestrator, "next", map[string]any{"workflow_id": wf})
	require.False(t, next.IsError, text(next))
	var waiting engine.Waiting
	structured(t, next, &waiting)
	assert.Equal(t, "RESEARCH", waiting.Status)
	require.NotEmpty(t, waiting.Parties)
	assert.Equal(t, "research_agent", waiting.Parties[0].ID)
	mine := call(t, orchestrator, "next", map[string]any{"workflow_id": wf, "as": "copywriter"})
	structured(t, mine, &waiting)
	assert.Empty(t, waiting.Parties, "the copywriter has nothing to send in RESEARCH")
	assert.Contains(t, text(mine), "copywriter has nothing to send now")

	tpl := call(t, orchestrator, "template", map[string]any{"pack": "campaign", "kind": "handoff", "workflow_id": wf, "target": "strategy_agent"})
	require.False(t, tpl.IsError, text(tpl))
	var filled client.FilledTemplate
	structured(t, tpl, &filled)
	assert.Equal(t, wf, filled.Request["workflow_id"])
	assert.Equal(t, "acme", filled.Request["tenant_id"])
	// The envelope names the session's own principal, the only one its token may send as.
	research := h.session(t, "acme/agent/research_agent")
	own := call(t, research, "template", map[string]any{"pack": "campaign", "kind": "handoff", "workflow_id": wf})
	structured(t, own, &filled)
	assert.Equal(t, map[string]any{"type": "agent", "id": "research_agent"}, filled.Request["actor"])
	bare := call(t, research, "template", map[string]any{"pack": "campaign", "kind": "handoff"})
	var skeleton struct {
		Request map[string]any `json:"request"`
	}
	structured(t, bare, &skeleton)
	assert.Equal(t, "acme", skeleton.Request["tenant_id"])
	assert.Equal(t, map[string]any{"type": "agent", "id": "research_agent"}, skeleton.Request["actor"])
	assert.Contains(t, research.InitializeResult().Instructions, `You act as agent "research_agent" of tenant "acme"`)

	body, err = p.Render(ctx, sc.Steps[1].Request)
	require.NoError(t, err)
	handoff := decode(t, body)
	handoff["request_id"] = "req-surface-research"
	body, err = json.Marshal(handoff)
	require.NoError(t, err)
	dry := call(t, research, "validate", map[string]any{"request": handoff})
	structured(t, dry, &v)
	assert.Equal(t, engine.Allow, v.Outcome, text(dry))
	assert.False(t, v.Recorded, "a dry run records nothing")

	explained := call(t, orchestrator, "explain", map[string]any{"decision_id": started.StructuredContent.(map[string]any)["decision_id"]})
	require.False(t, explained.IsError, text(explained))
	assert.Contains(t, text(explained), "Replayed and reproduced: true")

	// The research agent's session sends the strategy agent's request: refused as the
	// principal's, a result with the reason.
	req := decode(t, body)
	req["actor"] = map[string]any{"type": "agent", "id": "strategy_agent"}
	req["request_id"] = "req-not-mine"
	refused := call(t, research, "submit", map[string]any{"request": req})
	structured(t, refused, &v)
	assert.Equal(t, engine.Block, v.Outcome, text(refused))
	assertRefusal(t, refused, v)

	// A handoff to an agent the research agent does not hand to: blocked by the policy.
	req = decode(t, body)
	req["request_id"] = "req-skip"
	req["target_agent"] = "copywriter"
	blocked := call(t, research, "validate", map[string]any{"request": req})
	structured(t, blocked, &v)
	assert.Equal(t, engine.Block, v.Outcome, text(blocked))
	assertRefusal(t, blocked, v)
}

// TestToolErrors: what the service answers with an error is a tool error with its
// message, arguments that are not the tool's schema are refused before the service, and
// a token the service refuses, or a service not reached, opens no server.
func TestToolErrors(t *testing.T) {
	h := shared
	cs := h.session(t, "acme/system/orchestrator")
	missing := call(t, cs, "state", map[string]any{"workflow_id": "wf-none", "tenant_id": "acme"})
	assert.True(t, missing.IsError)
	assert.Contains(t, text(missing), "NOT_FOUND")
	// A request missing its envelope is still decided: a refusal, not an error.
	garbled := call(t, cs, "submit", map[string]any{"request": map[string]any{"kind": "start"}})
	var v handoffmcp.Verdict
	structured(t, garbled, &v)
	assertRefusal(t, garbled, v)
	untyped := call(t, cs, "submit", map[string]any{"request": "not an object"})
	assert.True(t, untyped.IsError)
	assert.Contains(t, text(untyped), "validating")

	_, err := handoffmcp.New(context.Background(), client.New(h.url, "tok-wrong", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "UNAUTHENTICATED")
	_, err = handoffmcp.New(context.Background(), client.New("http://127.0.0.1:1", "tok-x", nil))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "connection refused"), err.Error())
}
