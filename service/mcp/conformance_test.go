package mcp_test

import (
	"context"
	"sort"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	handoffmcp "github.com/handoff-dev/handoff/service/mcp"
)

// TestConformance plays one workflow of each pack to its end through the MCP tools only:
// each request of the pack's scenario goes through the submit tool of a session bound to
// its actor's token (the people's decisions through a person's session), and each
// decision is the one the scenario expects; a refusal comes back as a tool result.
func TestConformance(t *testing.T) {
	h := shared
	for _, pack := range []string{"campaign", "assessment", "support", "video"} {
		t.Run(pack, func(t *testing.T) {
			wf, tenant, decisions := h.play(t, conformanceScenarios[pack])
			st := call(t, h.session(t, tenant+"/"+decisions[0].actor), "state", map[string]any{"workflow_id": wf})
			require.False(t, st.IsError, text(st))
			var state struct {
				Pack     string `json:"pack"`
				Status   string `json:"status"`
				Terminal bool   `json:"terminal"`
			}
			structured(t, st, &state)
			assert.Equal(t, pack, state.Pack)
			assert.True(t, state.Terminal, "the workflow ended: %s", state.Status)
			assert.Contains(t, text(st), "is in status "+state.Status)
		})
	}
}

type played struct {
	actor string // type/id
	v     handoffmcp.Verdict
}

// play submits every step of a scenario through the submit tool and checks each verdict
// against the step's expectation.
func (h *harness) play(t *testing.T, file string) (workflow, tenant string, out []played) {
	t.Helper()
	ctx := context.Background()
	sc, err := scenario.Load(file)
	require.NoError(t, err)
	h.setNow(sc.Steps[0].At())
	defer h.setNow(time.Time{})
	p := scenario.NewPlayer(h.eng)
	for _, step := range sc.Steps {
		if !step.At().IsZero() {
			h.setNow(step.At())
		}
		body, err := p.Render(ctx, step.Request)
		require.NoError(t, err, step.Name)
		req := decode(t, body)
		key := actorKey(req)
		res := call(t, h.session(t, key), "submit", map[string]any{"request": req})
		require.False(t, res.IsError, "%s: %s", step.Name, text(res))
		var v handoffmcp.Verdict
		structured(t, res, &v)
		require.NotNil(t, v.Decision, step.Name)
		d := decisionOf(t, v)
		p.Observe(body, d)
		want := append([]string{}, step.Expect.Reasons...)
		sort.Strings(want)
		if len(want) == 0 {
			want = []string{}
		}
		require.Equal(t, step.Expect.Outcome, v.Outcome, "%s: %s", step.Name, text(res))
		assert.Equal(t, want, codes(v.Reasons), step.Name)
		if step.Expect.StatusAfter != "" {
			assert.Equal(t, step.Expect.StatusAfter, v.StatusAfter, step.Name)
		}
		assert.True(t, v.Recorded, step.Name)
		if v.Outcome == engine.Block {
			assertRefusal(t, res, v)
		}
		if workflow == "" {
			workflow, tenant = v.WorkflowID, d.TenantID
		}
		out = append(out, played{actor: key[len(tenant)+1:], v: v})
	}
	return workflow, tenant, out
}

// assertRefusal checks what a model reads of a refusal: a result, not an error, that
// says it was refused and gives each reason's code, what to fix and its message quoted as
// data.
func assertRefusal(t *testing.T, res *sdk.CallToolResult, v handoffmcp.Verdict) {
	t.Helper()
	assert.False(t, res.IsError, "a refusal is a result")
	assert.True(t, v.Refused)
	require.NotEmpty(t, v.Reasons)
	txt := text(res)
	assert.Contains(t, txt, "REFUSED")
	for _, r := range v.Reasons {
		assert.NotEmpty(t, r.Message, r.Code)
		assert.NotEmpty(t, r.Fix, "%s: what to fix comes from the policy's rule", r.Code)
		assert.Contains(t, txt, "- "+r.Code)
		assert.Contains(t, txt, "<untrusted-data>"+r.Message+"</untrusted-data>")
	}
}
