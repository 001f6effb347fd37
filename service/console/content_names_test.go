package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/browsertest"
)

// hostile is the markup of the browser tests' agent-written content (xss there).
const hostile = `<script>alert('xss')</script><img src=x onerror=alert('img')><a href=javascript:alert('link')>open</a>`

// TestVersionFieldNamesAreText: a field's name is the agent's text where the contract
// lets it choose keys (support's TASK_ASSIGNMENT required_output). The policy refuses
// a key that names no field of the task's output, so no workflow records markup there:
// the version is made here, as a state would hold it, and shown by the console's own
// page, headers and all, in Chromium. The names are text, nothing runs, no link is
// live.
func TestVersionFieldNamesAreText(t *testing.T) {
	eng, err := engine.Open(context.Background(), engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer eng.Close()
	c := New(eng, Options{})
	ref := engine.ArtifactRef{ID: "assignment", Type: "TASK_ASSIGNMENT", Version: 1, Hash: "sha256:" + hostile}
	st := &engine.State{WorkflowID: "wf-names", Pack: "support", Artifacts: map[string]*engine.ArtifactHistory{
		"TASK_ASSIGNMENT": {ID: "assignment", Latest: 1, Versions: map[string]*engine.ArtifactVersion{"1": {
			Ref: ref, Status: hostile, Producer: hostile, BasedOn: []engine.ArtifactRef{{Type: hostile, Version: 1}},
			Assumptions: []string{hostile}, Limitations: []string{"javascript:alert('limitation')"},
			Content: map[string]any{
				"task_id":         "T5",
				"required_output": map[string]any{hostile: "string", "javascript:alert('key')": "string"},
				hostile:           map[string]any{hostile: []any{hostile, map[string]any{hostile: hostile}}},
			}}}}}}
	v := c.readVersion(st, "TASK_ASSIGNMENT", 1)
	require.NotNil(t, v)
	c.mux.HandleFunc("GET /console/version-under-test", func(w http.ResponseWriter, r *http.Request) {
		c.render(w, r, http.StatusOK, "artifact.html", map[string]any{"V": v, "Versions": []int{1}})
	})
	srv := httptest.NewServer(c)
	defer srv.Close()

	tab := browsertest.New(t)
	var dialogs atomic.Int32
	require.NoError(t, chromedp.Listen(tab, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go func() {
				_, _ = chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}()
		}
	}))
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/console/version-under-test"), chromedp.WaitVisible(chromedp.CSS("article.version"))))
	eval := func(js string) any {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Evaluate[any](js))
		require.NoError(t, err, js)
		return out
	}
	eval(`document.querySelectorAll('details').forEach(d => d.open = true); true`)
	name, _ := json.Marshal(hostile)
	names := eval(`[...document.querySelectorAll('.content [data-field]')].filter(e => e.dataset.field === ` + string(name) + `).map(e => e.querySelector(':scope > .label .name').textContent)`)
	assert.Equal(t, []any{hostile, hostile, hostile, hostile}, names, "each name as the agent wrote it: in required_output, at the top, nested, in a list's object")
	assert.Equal(t, true, eval(`document.querySelector('[data-field="required_output"] > .label .help').textContent.length > 0`), "the contract's description labels the field")
	assert.Contains(t, eval(`document.querySelector('main').innerText`), hostile)
	assert.Equal(t, float64(0), eval(`document.querySelectorAll('main script, main img, main iframe, [onerror], [onload], a[href^="javascript:" i]').length`), "an element made of agent text")
	assert.Equal(t, true, eval(`[...document.querySelectorAll('main a')].every(a => a.getAttribute('href').startsWith('/console/'))`), "a link of the agent's text is live")
	assert.Equal(t, int32(0), dialogs.Load(), "a dialog opened: agent text ran as script")
}
