package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/service/webhook"
)

// overHTTP is a scenario.Engine that plays requests through a server's API, each with
// the token of its actor.
type overHTTP struct {
	t    *testing.T
	base string
}

func (h overHTTP) do(method, path, token string, body []byte) []byte {
	h.t.Helper()
	req, err := http.NewRequest(method, h.base+path, bytes.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	require.Equal(h.t, http.StatusOK, resp.StatusCode, "%s %s: %s", method, path, out)
	return out
}

func (h overHTTP) Submit(_ context.Context, body []byte) (*engine.Decision, error) {
	var req struct{ Actor struct{ ID string } }
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var d engine.Decision
	err := json.Unmarshal(h.do("POST", "/v1/requests", "tok-"+req.Actor.ID, body), &d)
	return &d, err
}

func (h overHTTP) SubmitAt(context.Context, []byte, time.Time) (*engine.Decision, error) {
	return nil, fmt.Errorf("a server takes no client's clock")
}

func (h overHTTP) State(_ context.Context, tenant, workflow string) (*engine.State, error) {
	var st engine.State
	err := json.Unmarshal(h.do("GET", "/v1/tenants/"+url.PathEscape(tenant)+"/workflows/"+url.PathEscape(workflow), "tok-orchestrator", nil), &st)
	return &st, err
}

// TestServeWebhooks runs handoffctl serve with --webhooks, plays the campaign through
// its API until a gate waits for a person, and finds the gate's event at the receiver,
// signed with the endpoint's secret; /metrics counts the delivery and the store's
// directory records it.
func TestServeWebhooks(t *testing.T) {
	const secret = "a-signing-secret-of-32-bytes-xyz"
	t.Setenv("HANDOFF_TEST_WEBHOOK_SECRET", secret)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var mu sync.Mutex
	type delivery struct {
		header http.Header
		body   []byte
	}
	var got []delivery
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, delivery{r.Header.Clone(), body})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	dir := t.TempDir()
	var ps []string
	for _, p := range []struct{ typ, id string }{{"system", "orchestrator"}, {"agent", "research_agent"}, {"agent", "qa_agent"}, {"agent", "strategy_agent"}} {
		ps = append(ps, fmt.Sprintf(`{"name": %q, "token_sha256": %q, "tenant_id": "acme", "type": %q, "id": %q}`, p.id, service.HashToken("tok-"+p.id), p.typ, p.id))
	}
	principals := filepath.Join(dir, "principals.json")
	require.NoError(t, os.WriteFile(principals, []byte(`{"principals": [`+strings.Join(ps, ",")+`]}`), 0o600))
	hooks := filepath.Join(dir, "webhooks.json")
	require.NoError(t, os.WriteFile(hooks, []byte(`{"webhooks": [{"name": "pager", "tenant_id": "acme", "url": "`+receiver.URL+`/handoff",
		"events": ["await_human"], "secret_env": "HANDOFF_TEST_WEBHOOK_SECRET"}]}`), 0o600))

	db := filepath.Join(dir, "db")
	srv := startServe(t, db, principals, "--webhooks", hooks)
	assert.Contains(t, srv.stdout.String(), "webhooks: 1 endpoints of 1 tenants")

	api := overHTTP{t: t, base: srv.base}
	ctx := context.Background()
	sc, err := scenario.Load("../../policies_test/handoff/campaign/scenarios/01-happy-path.scenario")
	require.NoError(t, err)
	p := scenario.NewPlayer(api)
	var gate *engine.Decision
	for _, step := range sc.Steps {
		body, err := p.Render(ctx, step.Request)
		require.NoError(t, err)
		d, err := api.Submit(ctx, body)
		require.NoError(t, err)
		require.Equal(t, step.Expect.Outcome, d.Outcome, "step %q: %v", step.Name, d.Reasons)
		p.Observe(body, d)
		if d.Outcome == engine.AwaitHuman {
			gate = d
			break
		}
	}
	require.NotNil(t, gate, "the scenario reaches a gate")

	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) > 0 }, 30*time.Second, 10*time.Millisecond)
	mu.Lock()
	require.Len(t, got, 1, "one event: the steps before the gate wait for no person")
	hook := got[0]
	mu.Unlock()
	assert.NoError(t, webhook.Verify([]byte(secret), hook.header.Get(webhook.SignatureHeader), hook.body, time.Minute, time.Now()))
	assert.ErrorIs(t, webhook.Verify([]byte("another-secret-of-32-bytes-abcde"), hook.header.Get(webhook.SignatureHeader), hook.body, time.Minute, time.Now()), webhook.ErrBadSignature)
	id := webhook.WebhookID("acme", "pager", gate.DecisionID)
	assert.Equal(t, id, hook.header.Get(webhook.IDHeader))
	assert.Equal(t, "await_human", hook.header.Get(webhook.EventHeader))
	var ev webhook.Event
	require.NoError(t, json.Unmarshal(hook.body, &ev))
	assert.Equal(t, webhook.Event{ID: id, Type: "await_human", TenantID: "acme", WorkflowID: gate.WorkflowID, DecisionID: gate.DecisionID,
		Pack: "campaign", Kind: gate.Kind, Outcome: "await_human", Status: gate.StatusAfter, StatusBefore: gate.StatusBefore,
		Reasons: ev.Reasons, Next: ev.Next, RequiresHumanReview: gate.RequiresHumanReview, DecidedAt: gate.DecidedAt,
		ConsolePath: "/console/workflows/" + url.PathEscape(gate.WorkflowID)}, ev)
	require.Len(t, ev.Reasons, len(gate.Reasons))
	for i, r := range gate.Reasons {
		assert.Equal(t, webhook.EventReason{Code: r.Code, Title: r.Title}, ev.Reasons[i])
		if r.Message != "" {
			assert.NotContains(t, string(hook.body), r.Message, "a reason's message is not sent")
		}
	}

	// The delivery is counted once recorded, a moment after the receiver answered.
	var metrics []byte
	require.Eventually(t, func() bool {
		resp, err := http.Get(srv.base + "/metrics")
		require.NoError(t, err)
		metrics, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(metrics), `handoff_webhook_deliveries_total{endpoint="pager",result="delivered",tenant="acme"} 1`)
	}, 30*time.Second, 20*time.Millisecond, "the delivery is not counted")
	assert.Contains(t, string(metrics), `handoff_webhook_sweeps_total{result="ok"} 1`)
	assert.Contains(t, string(metrics), `handoff_decisions_total{`, "the service's metrics are served beside them")

	require.Equal(t, exitOK, srv.stop(), "stderr: %s", srv.stderr.String())
	records, err := os.ReadFile(filepath.Join(db, webhook.DeliveriesFile))
	require.NoError(t, err)
	assert.Contains(t, string(records), id)
}

// TestServeWebhooksRefusesABadFile: serve does not start on a webhooks file that does not
// check, and says which file and field.
func TestServeWebhooksRefusesABadFile(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "webhooks.json")
	require.NoError(t, os.WriteFile(hooks, []byte(`{"webhooks": [{"name": "pager", "tenant_id": "acme", "url": "https://x.example",
		"events": ["await_human"], "secret": "inline-secret-of-many-bytes"}]}`), 0o600))
	code, _, errOut := runArgs(t, "--db", filepath.Join(dir, "db"), "serve", "--addr", "127.0.0.1:0", "--principals", writePrincipals(t, dir, "tok"), "--webhooks", hooks)
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, hooks+": webhooks[0] (pager): secret: a secret is never written in the file")
}
