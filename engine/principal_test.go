package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// A request sent with a principal must be that principal's: another tenant, another
// actor or a role it does not hold is blocked with IDENTITY_MISMATCH, recorded in the
// principal's tenant's audit stream, and nothing is read or written for the tenant the
// request names.
func TestSubmitFromChecksTheRequestAgainstItsPrincipal(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(t, err)
	defer e.Close()
	host := engine.Principal{Tenant: "acme", Type: "system", ID: "orchestrator"}
	d, err := e.SubmitFrom(ctx, []byte(explainStart), host)
	require.NoError(t, err)
	require.Equal(t, engine.Allow, d.Outcome, "%+v", d.Reasons)

	cancel := explainCancel("req-c1", "maria", "campaign_manager")
	for name, c := range map[string]struct {
		p    engine.Principal
		path string
	}{
		"another tenant":  {engine.Principal{Tenant: "globex", Type: "human", ID: "maria", Roles: []string{"campaign_manager"}}, "tenant_id"},
		"another person":  {engine.Principal{Tenant: "acme", Type: "human", ID: "sam", Roles: []string{"campaign_manager"}}, "actor"},
		"an agent":        {engine.Principal{Tenant: "acme", Type: "agent", ID: "maria"}, "actor"},
		"a role not held": {engine.Principal{Tenant: "acme", Type: "human", ID: "maria", Roles: []string{"viewer"}}, "actor.roles[0]"},
	} {
		t.Run(name, func(t *testing.T) {
			before := auditCount(t, e, "acme", "globex")
			ev, err := e.EvaluateFrom(ctx, []byte(cancel), c.p)
			require.NoError(t, err)
			d, err := e.SubmitFrom(ctx, []byte(cancel), c.p)
			require.NoError(t, err)
			for _, d := range []*engine.Decision{ev, d} {
				assert.Equal(t, engine.Block, d.Outcome)
				require.Equal(t, []string{"IDENTITY_MISMATCH"}, d.Codes(), "%+v", d.Reasons)
				assert.Equal(t, c.path, d.Reasons[0].Path)
				assert.Equal(t, c.p.Tenant, d.TenantID, "the decision is the principal's tenant's")
				assert.True(t, d.IdentityMismatch(), "the refusal says so to the host")
			}
			after := auditCount(t, e, "acme", "globex")
			want := before
			want[c.p.Tenant]++
			assert.Equal(t, want, after, "one audit record, in the principal's tenant only")
			st, err := e.State(ctx, "acme", "wf-explain")
			require.NoError(t, err)
			assert.Equal(t, "RESEARCH", st.Status, "the workflow did not move")
		})
	}

	// The person herself, with her role, is decided as usual.
	maria := engine.Principal{Tenant: "acme", Type: "human", ID: "maria", Roles: []string{"campaign_manager", "viewer"}}
	d, err = e.SubmitFrom(ctx, []byte(cancel), maria)
	require.NoError(t, err)
	assert.NotContains(t, d.Codes(), "IDENTITY_MISMATCH")
	assert.False(t, d.IdentityMismatch())
	assert.True(t, d.Recorded)

	// An undecodable request goes to the principal's tenant's audit stream.
	before := auditCount(t, e, "acme", "globex")
	d, err = e.SubmitFrom(ctx, []byte(`{"kind": `), host)
	require.NoError(t, err)
	assert.Equal(t, engine.Block, d.Outcome)
	after := auditCount(t, e, "acme", "globex")
	assert.Equal(t, before["acme"]+1, after["acme"])
}

func auditCount(t *testing.T, e *engine.Engine, tenants ...string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tenant := range tenants {
		err := e.Audit(context.Background(), tenant, func(engine.Entry) error {
			out[tenant]++
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), "not found") {
			require.NoError(t, err)
		}
	}
	return out
}
