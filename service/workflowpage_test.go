package service_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workflowPage is a page of GET /v1/tenants/{tenant}/workflows.
type workflowPage struct {
	Workflows []struct {
		WorkflowID string   `json:"workflow_id"`
		SubjectID  string   `json:"subject_id"`
		ActiveAt   string   `json:"active_at"`
		Agents     []string `json:"agents"`
		Reasons    []string `json:"reasons"`
		Decisions  uint64   `json:"decisions"`
	} `json:"workflows"`
	Next string `json:"next"`
}

// TestWorkflowPagesOverHTTP starts 5 workflows and reads them back by pages of 2, most
// recent first, then by search; bad filters and a forged cursor are 400s.
func TestWorkflowPagesOverHTTP(t *testing.T) {
	a := newAPI(t)
	for i := range 5 {
		body := strings.NewReplacer(`"req-start"`, fmt.Sprintf(`"req-start-%d"`, i), `"wf-api"`, fmt.Sprintf(`"wf-%d"`, i),
			`"brightbrew-q2-launch"`, fmt.Sprintf(`"subject-%d"`, i)).Replace(start)
		status, d := a.submit(hostToken, body)
		require.Equal(t, http.StatusOK, status, "%v", d)
	}
	var got []string
	cursor := ""
	for pages := 1; ; pages++ {
		require.LessOrEqual(t, pages, 3)
		q := url.Values{"limit": {"2"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		status, out := a.call("GET", "/v1/tenants/acme/workflows?"+q.Encode(), hostToken, "", nil)
		require.Equal(t, http.StatusOK, status, "%s", out)
		var page workflowPage
		require.NoError(t, json.Unmarshal(out, &page))
		for _, w := range page.Workflows {
			got = append(got, w.WorkflowID)
			assert.NotEmpty(t, w.ActiveAt)
			assert.NotNil(t, w.Reasons)
			assert.Equal(t, uint64(1), w.Decisions)
		}
		if cursor = page.Next; cursor == "" {
			assert.Equal(t, 3, pages)
			break
		}
	}
	assert.ElementsMatch(t, []string{"wf-0", "wf-1", "wf-2", "wf-3", "wf-4"}, got)

	status, out := a.call("GET", "/v1/tenants/acme/workflows?q=SUBJECT-3", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)
	var all workflowPage
	require.NoError(t, json.Unmarshal(out, &all))
	require.Len(t, all.Workflows, 1)
	assert.Equal(t, "wf-3", all.Workflows[0].WorkflowID)
	assert.Empty(t, all.Next, "without limit or cursor, every workflow: no next page")

	for _, bad := range []string{"waiting=someone", "limit=0", "limit=201", "since=yesterday", "cursor=forged", "color=red", "q=a&q=b", "awaiting=human&waiting=nobody"} {
		status, out := a.call("GET", "/v1/tenants/acme/workflows?"+bad, hostToken, "", nil)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", bad, out)
	}
	status, out = a.call("GET", "/v1/tenants/acme/workflows?waiting=me", hostToken, "", nil)
	assert.Equal(t, http.StatusBadRequest, status, "a system's token has no roles to wait for: %s", out)
	status, out = a.call("GET", "/v1/tenants/acme/workflows?waiting=me&limit=10", mariaToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)
	status, _ = a.call("GET", "/v1/tenants/acme/workflows?limit=2", globexToken, "", nil)
	assert.Equal(t, http.StatusForbidden, status)
}
