package service_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// TestNextAndTemplateAnswers: the two ways to ask what a workflow waits for agree, a
// bad time, an unknown workflow or another tenant's is answered as the state route
// answers it, and a template names the closest names of what it does not know.
func TestNextAndTemplateAnswers(t *testing.T) {
	a := newAPI(t)
	status, d := a.submit(hostToken, start)
	require.Equal(t, http.StatusOK, status, "%v", d)

	const at = "?at=2026-11-02T09:30:00Z"
	status, tenantRoute := a.call("GET", "/v1/tenants/acme/workflows/wf-api/next"+at, hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", tenantRoute)
	status, ownRoute := a.call("GET", "/v1/workflows/wf-api/next"+at, hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", ownRoute)
	assert.Equal(t, decoded(t, tenantRoute), decoded(t, ownRoute))
	var w struct {
		WorkflowID string `json:"workflow_id"`
	}
	require.NoError(t, json.Unmarshal(ownRoute, &w))
	assert.Equal(t, "wf-api", w.WorkflowID)

	status, body := a.call("GET", "/v1/workflows/wf-api/next?at=yesterday", hostToken, "", nil)
	assert.Equal(t, http.StatusBadRequest, status)
	e := errorOf(t, body)
	assert.Equal(t, "BAD_REQUEST", e.Code)
	assert.Contains(t, e.Message, `"yesterday"`)
	assert.NotEmpty(t, e.Hint)

	_, stateMissing := a.call("GET", "/v1/tenants/acme/workflows/wf-none", hostToken, "", nil)
	status, nextMissing := a.call("GET", "/v1/tenants/acme/workflows/wf-none/next", hostToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, decoded(t, stateMissing), decoded(t, nextMissing), "the state route's 404")
	status, _ = a.call("GET", "/v1/workflows/wf-api/next", globexToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status, "another tenant's workflow is not the caller's")
	status, _ = a.call("GET", "/v1/tenants/acme/workflows/wf-api/next", globexToken, "", nil)
	assert.Equal(t, http.StatusForbidden, status)

	for _, tc := range []struct {
		path    string
		status  int
		closest string
	}{
		{"/v1/packs/campain/templates/handoff", http.StatusNotFound, "campaign"},
		{"/v1/packs/campaign/templates/handof", http.StatusNotFound, "handoff"},
		{"/v1/packs/campaign/templates/handoff?target=qa_agen", http.StatusBadRequest, "qa_agent"},
		{"/v1/packs/campaign/templates/review?target=qa_agent", http.StatusBadRequest, ""},
	} {
		status, body := a.call("GET", tc.path, hostToken, "", nil)
		assert.Equal(t, tc.status, status, "%s: %s", tc.path, body)
		e := errorOf(t, body)
		assert.Contains(t, e.Hint, tc.closest, tc.path)
		assert.NotEmpty(t, e.Hint, tc.path)
	}

	status, plain := a.call("GET", "/v1/packs/campaign/templates/approval", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", plain)
	tpl, err := a.e.Decider().Template("campaign", "approval", engine.TemplateOptions{})
	require.NoError(t, err)
	assert.Equal(t, decoded(t, tpl.JSON()), decoded(t, plain))

	status, body = a.call("GET", "/v1/packs/campaign/templates/approval?workflow_id=wf-api", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", body)
	var f scenario.FilledTemplate
	require.NoError(t, json.Unmarshal(body, &f))
	assert.Equal(t, "acme", f.Request["tenant_id"])
	assert.Equal(t, "acme-marketing", f.Request["organization_id"])
	assert.Equal(t, "wf-api", f.Request["workflow_id"])
	assert.Equal(t, "trace-1", f.Request["trace_id"], "the trace of the workflow's start")
	assert.NotNil(t, f.Unresolved)

	for _, token := range []string{globexToken, adminToken} {
		status, _ = a.call("GET", "/v1/packs/campaign/templates/approval?workflow_id=wf-none", token, "", nil)
		assert.Equal(t, http.StatusNotFound, status)
	}
	status, leak := a.call("GET", "/v1/packs/campaign/templates/approval?workflow_id=wf-api", globexToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status, "another tenant's workflow is never filled: %s", leak)
	assert.Equal(t, errorOf(t, stateMissing).Code, errorOf(t, leak).Code)
	status, _ = a.call("GET", "/v1/packs/video/templates/approval?workflow_id=wf-api", hostToken, "", nil)
	assert.Equal(t, http.StatusBadRequest, status, "a workflow of another pack")
}

// errorOf decodes an error answer.
func errorOf(t *testing.T, body []byte) handoff.Error {
	t.Helper()
	var e handoff.Error
	require.NoError(t, json.Unmarshal(body, &e), "%s", body)
	return e
}
