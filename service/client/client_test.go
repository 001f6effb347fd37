package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/service/client"
	"github.com/handoff-dev/handoff/store"
)

const start = `{"request_id": "req-start", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "s1", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-client"}`

// The client speaks the engine's types, and the service's errors come back as *Error
// that match the engine's not-found errors.
func TestClient(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	ps, err := service.ParsePrincipals([]byte(`{"principals": [
		{"name": "host", "token_sha256": "` + service.HashToken("tok-host") + `", "tenant_id": "acme", "type": "system", "id": "orchestrator"}]}`))
	require.NoError(t, err)
	srv := httptest.NewServer(service.New(e, service.Options{Principals: ps}))
	defer srv.Close()
	c := client.New(srv.URL, "tok-host", nil)
	defer c.Close()

	me, err := c.WhoAmI(ctx)
	require.NoError(t, err)
	assert.Equal(t, "acme", me.Tenant)
	assert.Equal(t, [2]string{"system", "orchestrator"}, [2]string{me.Actor.Type, me.Actor.ID})

	d, err := c.Submit(ctx, []byte(start))
	require.NoError(t, err)
	assert.Equal(t, engine.Allow, d.Outcome)
	st, err := c.State(ctx, "acme", "wf-client")
	require.NoError(t, err)
	assert.Equal(t, "RESEARCH", st.Status)
	list, err := c.ListWorkflows(ctx, "acme", engine.WorkflowFilter{Pack: "campaign"})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, engine.Allow, list[0].Standing)
	n := 0
	require.NoError(t, c.History(ctx, "acme", "wf-client", func(engine.Entry) error { n++; return nil }))
	assert.Equal(t, 1, n)
	ent, err := c.Decision(ctx, d.DecisionID)
	require.NoError(t, err)
	assert.Equal(t, d.DecisionID, ent.Decision.DecisionID)
	rep, err := c.Verify(ctx, "acme", "wf-client")
	require.NoError(t, err)
	assert.True(t, rep.OK)
	events := 0
	require.NoError(t, c.DecisionLog(ctx, engine.DecisionLogOptions{Tenant: "acme"}, func(ev engine.DecisionLogEvent) error {
		events++
		assert.Equal(t, d.DecisionID, ev.DecisionID)
		return nil
	}))
	assert.Equal(t, 1, events)

	at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	w, err := c.Next(ctx, "acme", "wf-client", at)
	require.NoError(t, err)
	want, err := e.Decider().WaitingAt(ctx, st, at)
	require.NoError(t, err)
	assert.Equal(t, want.At, w.At)
	assert.Equal(t, want.Status, w.Status)
	require.Len(t, w.Parties, len(want.Parties))
	assert.Equal(t, want.Parties[0].ID, w.Parties[0].ID)
	_, err = c.Next(ctx, "acme", "wf-none", time.Time{})
	assert.ErrorIs(t, err, store.ErrNotFound)
	tpl, err := c.Template(ctx, "campaign", "approval", client.TemplateOptions{})
	require.NoError(t, err)
	local, err := e.Decider().Template("campaign", "approval", engine.TemplateOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, string(local.JSON()), string(tpl))
	f, err := c.FillTemplate(ctx, "campaign", "approval", "wf-client", client.TemplateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "wf-client", f.Request["workflow_id"])
	assert.Equal(t, "trace-1", f.Request["trace_id"])
	_, err = c.Template(ctx, "campaign", "handoff", client.TemplateOptions{Target: "qa_agen"})
	var te *client.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "BAD_REQUEST", te.Code)
	assert.Contains(t, te.Hint, "qa_agent")

	_, err = c.State(ctx, "acme", "wf-none")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = c.Explain(ctx, "no-such-decision")
	assert.ErrorIs(t, err, engine.ErrDecisionNotFound)

	var ce *client.Error
	_, err = c.Submit(ctx, []byte(strings.Replace(start, `"tenant_id": "acme"`, `"tenant_id": "globex"`, 1)))
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 403, ce.Status)
	assert.Equal(t, "IDENTITY_MISMATCH", ce.Code)
	require.NotNil(t, ce.Decision)
	assert.Equal(t, engine.Block, ce.Decision.Outcome)
	assert.NotEmpty(t, ce.Hint)

	err = c.Backup(ctx, &bytes.Buffer{})
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "FORBIDDEN", ce.Code, "a backup is an admin's")
	_, err = client.New(srv.URL, "wrong", nil).State(ctx, "acme", "wf-client")
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 401, ce.Status)
	assert.False(t, errors.Is(err, store.ErrNotFound))
}

// Ids may hold '/', ':', '@' and '.' (core.#ID): the client puts each in its path as one
// escaped segment, and every route of the API reads it back whole. The tenant with a
// '/' is one an embedding host recorded (a principal's tenant cannot hold one), read by
// an admin.
func TestClientIDsWithSlashes(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	ps, err := service.ParsePrincipals([]byte(`{"principals": [
		{"name": "host", "token_sha256": "` + service.HashToken("tok-host") + `", "tenant_id": "acme", "type": "system", "id": "orchestrator"},
		{"name": "auditor", "token_sha256": "` + service.HashToken("tok-admin") + `", "tenant_id": "acme", "type": "system", "id": "auditor", "admin": true}]}`))
	require.NoError(t, err)
	srv := httptest.NewServer(service.New(e, service.Options{Principals: ps}))
	defer srv.Close()

	for _, tc := range []struct{ tenant, workflow, token string }{
		{"acme", "acme.eu/q2/../launch:brightbrew@v1.0", "tok-host"},
		{"acme/eu", "q2/launch", "tok-admin"},
	} {
		t.Run(tc.tenant+" "+tc.workflow, func(t *testing.T) {
			c := client.New(srv.URL, tc.token, nil)
			defer c.Close()
			body := strings.NewReplacer(`"tenant_id": "acme"`, `"tenant_id": "`+tc.tenant+`"`, `"wf-client"`, `"`+tc.workflow+`"`,
				`"req-start"`, `"req-`+tc.workflow+`"`).Replace(start)
			var d *engine.Decision
			if tc.token == "tok-host" {
				d, err = c.Submit(ctx, []byte(body))
			} else {
				d, err = e.Submit(ctx, []byte(body)) // an admin reads, never submits for another tenant
			}
			require.NoError(t, err)
			require.Equal(t, engine.Allow, d.Outcome, "%v", d.Reasons)
			require.Equal(t, tc.workflow, d.WorkflowID)

			st, err := c.State(ctx, tc.tenant, tc.workflow)
			require.NoError(t, err)
			assert.Equal(t, tc.workflow, st.WorkflowID)
			assert.Equal(t, tc.tenant, st.TenantID)
			var seen []string
			require.NoError(t, c.History(ctx, tc.tenant, tc.workflow, func(en engine.Entry) error {
				seen = append(seen, en.Decision.WorkflowID)
				return nil
			}))
			assert.Equal(t, []string{tc.workflow}, seen)
			list, err := c.ListWorkflows(ctx, tc.tenant, engine.WorkflowFilter{})
			require.NoError(t, err)
			var ids []string
			for _, s := range list {
				ids = append(ids, s.WorkflowID)
			}
			assert.Contains(t, ids, tc.workflow)
			rep, err := c.Verify(ctx, tc.tenant, tc.workflow)
			require.NoError(t, err)
			assert.True(t, rep.OK, rep.Problem)
			reps, err := c.VerifyTenant(ctx, tc.tenant)
			require.NoError(t, err)
			assert.NotEmpty(t, reps)
			ent, err := c.Decision(ctx, d.DecisionID)
			require.NoError(t, err)
			assert.Equal(t, tc.workflow, ent.Decision.WorkflowID)
			ex, err := c.Explain(ctx, d.DecisionID)
			require.NoError(t, err)
			assert.Equal(t, tc.workflow, ex.Decision.WorkflowID)
			events := 0
			require.NoError(t, c.DecisionLog(ctx, engine.DecisionLogOptions{Tenant: tc.tenant, Workflow: tc.workflow}, func(ev engine.DecisionLogEvent) error {
				events++
				assert.Equal(t, d.DecisionID, ev.DecisionID)
				return nil
			}))
			assert.Equal(t, 1, events)
			require.NoError(t, c.Audit(ctx, tc.tenant, func(engine.Entry) error { return nil }))

			// A prefix of the id is another workflow, not found.
			_, err = c.State(ctx, tc.tenant, tc.workflow[:strings.Index(tc.workflow, "/")])
			assert.ErrorIs(t, err, store.ErrNotFound)
		})
	}
}
