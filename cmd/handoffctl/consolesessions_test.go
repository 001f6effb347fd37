package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/browsertest"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/internal/syncbuf"
	"github.com/handoff-dev/handoff/service"
)

// serveProcess starts handoffctl serve as a process of its own on store, on a loopback
// port of its own, and returns its base URL; it is killed when t ends.
func serveProcess(t *testing.T, store, principals string) string {
	t.Helper()
	bin, err := exec.LookPath("handoffctl") // installed on PATH by testscript.Main
	require.NoError(t, err)
	cmd := exec.Command(bin, "--store", store, "serve", "--addr", "127.0.0.1:0", "--principals", principals)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return base
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not start: %s", stderr.String())
		return ""
	}
}

// TestConsoleSessionAcrossServeProcesses runs two handoffctl serve processes on one
// PostgreSQL store, as behind a load balancer, and a browser: the person signs in on
// the first and approves a gate on the second (a cookie is the host's, whatever the
// port, so the browser sends the session to both); signing out everywhere on one ends
// the session of another browser on the other. The store then verifies and replays.
func TestConsoleSessionAcrossServeProcesses(t *testing.T) {
	tab := browsertest.New(t)
	pg := pgtest.URL(t)
	ctx := context.Background()
	code, _, errOut := runArgs(t, "migrate", "--store", pg)
	require.Equal(t, exitOK, code, errOut)
	dir := t.TempDir()
	const token = "tok-maria"
	doc := `{"principals": [{"name": "maria", "token_sha256": "` + service.HashToken(token) + `", "tenant_id": "acme", "type": "human", "id": "maria.lopez", "roles": ["campaign_approver"], "admin": true}]}`
	principals := filepath.Join(dir, "principals.json")
	require.NoError(t, os.WriteFile(principals, []byte(doc), 0o600))
	a, b := serveProcess(t, pg, principals), serveProcess(t, pg, principals)
	require.NotEqual(t, a, b)

	// The agents bring a campaign to its strategy gate.
	e, err := engine.Open(ctx, engine.Options{StoreURL: pg, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	sc, err := scenario.Load(filepath.Join("..", "..", "policies_test", "handoff", "campaign", "scenarios", "08-delivery-of-draft.scenario"))
	require.NoError(t, err)
	player := scenario.NewPlayer(e)
	for _, st := range sc.Steps {
		if st.Name == "strategy v1 approved" {
			break
		}
		body, err := player.Render(ctx, st.Request)
		require.NoError(t, err, st.Name)
		d, err := e.Submit(ctx, body)
		require.NoError(t, err, st.Name)
		require.Equal(t, st.Expect.Outcome, d.Outcome, st.Name)
		player.Observe(body, d)
	}
	list, err := e.ListWorkflows(ctx, "acme", engine.WorkflowFilter{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	wf := list[0].WorkflowID

	do := func(tab context.Context, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(tab, 30*time.Second)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, actions...))
	}
	text := func(tab context.Context, sel string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(tab, 30*time.Second)
		defer cancel()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, sel)
		return s
	}
	signIn := func(tab context.Context, base string) {
		t.Helper()
		do(tab, chromedp.Navigate(base+"/console/signin"), chromedp.WaitVisible(chromedp.CSS("#token")),
			chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Click(chromedp.CSS("#signin")),
			chromedp.WaitVisible(chromedp.CSS("#signout")))
	}

	// Sign in on A; approve on B.
	signIn(tab, a)
	do(tab, chromedp.Navigate(b+"/console/workflows/"+wf), chromedp.WaitVisible(chromedp.CSS("#approval-form")))
	do(tab, chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#decision")))
	assert.Equal(t, "PRODUCTION", text(tab, "#status-after"), "approved on B with the session of A")
	st, err := e.State(ctx, "acme", wf)
	require.NoError(t, err)
	assert.Equal(t, "PRODUCTION", st.Status)

	// Another browser signs in on B; signing out everywhere on A ends it.
	other, cancel := chromedp.NewContext(tab, chromedp.WithNewBrowserContext())
	defer cancel()
	require.NoError(t, chromedp.Do(other), "start the other browser") // its first run holds its tab open
	signIn(other, b)
	do(other, chromedp.Navigate(a+"/console/"), chromedp.WaitVisible(chromedp.CSS("#signout")))
	do(tab, chromedp.Navigate(a+"/console/signout/all"), chromedp.WaitVisible(chromedp.CSS("#signout-all")),
		chromedp.Click(chromedp.CSS("#signout-all")), chromedp.WaitVisible(chromedp.CSS("#token")))
	do(other, chromedp.Navigate(b+"/console/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	do(other, chromedp.Navigate(a+"/console/"), chromedp.WaitVisible(chromedp.CSS("#token")))

	// A new sign-in, on B, reads the audit: both servers wrote to one stream.
	signIn(tab, b)
	do(tab, chromedp.Navigate(b+"/console/audit"), chromedp.WaitVisible(chromedp.CSS("#audit")))
	audit := text(tab, "#audit")
	assert.Regexp(t, `(?s)Signed in.*Signed out everywhere.*Signed in.*Signed in`, audit, "newest first")
	assert.Contains(t, audit, "maria (maria.lopez)")

	// The store with its console events verifies and replays.
	code, out, errOut := runArgs(t, "--store", pg, "verify")
	require.Equal(t, exitOK, code, errOut+out)
	assert.NotContains(t, out, "BROKEN")
	code, out, errOut = runArgs(t, "--store", pg, "-o", "json", "replay", "--all")
	require.Equal(t, exitOK, code, errOut)
	var rep struct{ Replayed, Changed int }
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Positive(t, rep.Replayed)
	assert.Zero(t, rep.Changed)
	code, out, errOut = runArgs(t, "--store", pg, "-o", "json", "log", "--tenant", "acme", "--audit")
	require.Equal(t, exitOK, code, errOut)
	var security struct{ Entries []engine.Entry }
	require.NoError(t, json.Unmarshal([]byte(out), &security), out)
	assert.Empty(t, security.Entries, "the security audit lists no console event")
}
