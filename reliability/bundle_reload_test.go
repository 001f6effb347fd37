package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/bundle"
	"github.com/handoff-dev/handoff/service"
)

// The bundles the reload test switches between: A and B, which decide a start for the
// client "Blockco" differently (A allows it, B has no proposal for it and blocks it);
// C, signed but does not compile; A unsigned; B signed by a key the server does not
// trust.
const (
	variantA        = "A"
	variantB        = "B"
	variantInvalid  = "invalid"
	variantUnsigned = "unsigned"
	variantBadSig   = "bad_signature"
)

// reloadCycle is the order of the reloads: every refusal comes between two valid
// bundles, so that each is refused while either of them decides.
var reloadCycle = []string{variantB, variantInvalid, variantA, variantUnsigned, variantBadSig}

// TestBundleReload switches the bundle of a real `handoffctl serve` (a signed bundle
// archive, --bundle-key) again and again under load from concurrent clients, by SIGHUP
// and by POST /v1/admin/bundle/reload in turn, interleaving valid, invalid, unsigned
// and wrongly signed bundles. No request may fail; every decision names A or B and has
// the outcome that bundle gives its request; every refused reload says why in the API
// answer, in the log and in handoff_bundle_reloads_total, while the bundle before it
// keeps deciding. The latency of requests in flight during a switch and in steady state
// is logged (p50, p99), not asserted. HANDOFF_RELOADS sets the number of reloads (CI:
// 50), HANDOFF_RELOAD_CLIENTS the clients (CI: 8).
func TestBundleReload(t *testing.T) {
	reloads := size(t, "HANDOFF_RELOADS", 50, 6)
	clients := size(t, "HANDOFF_RELOAD_CLIENTS", 8, 4)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "handoffctl")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/handoffctl").CombinedOutput()
	require.NoError(t, err, "go build handoffctl:\n%s", out)
	ctl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		require.NoError(t, err, "handoffctl %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}

	// The campaign pack alone, with core: a bundle that compiles in a fraction of the
	// shipped one's time.
	dirA, dirB, dirC := filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "c")
	for _, dir := range []string{dirA, dirB, dirC} {
		for _, sub := range []string{"contracts/cue.mod", "contracts/core", "contracts/campaign", "policies/handoff/core", "policies/handoff/lib", "policies/handoff/campaign"} {
			require.NoError(t, os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("..", sub))))
		}
	}
	campaign := filepath.Join(dirB, "policies", "handoff", "campaign", "campaign.rego")
	src, err := os.ReadFile(campaign)
	require.NoError(t, err)
	const startRule = `_propose := _start_proposal if input.request.kind == "start"`
	require.Contains(t, string(src), startRule)
	require.NoError(t, os.WriteFile(campaign, []byte(strings.Replace(string(src), startRule,
		"_propose := _start_proposal if {\n\tinput.request.kind == \"start\"\n\tinput.request.brief.client != \"Blockco\"\n}", 1)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dirC, "contracts", "core", "broken.cue"), []byte("package core\n\nthis is not { cue\n"), 0o644))

	ctl("keygen", "--out", filepath.Join(tmp, "signer"))
	ctl("keygen", "--out", filepath.Join(tmp, "other"))
	archives := map[string]string{} // variant -> archive; its signature beside it, when signed
	digests := map[string]string{}  // A and B -> digest
	for variant, build := range map[string]struct{ dir, key string }{
		variantA: {dirA, "signer"}, variantB: {dirB, "signer"}, variantInvalid: {dirC, "signer"},
		variantUnsigned: {dirA, ""}, variantBadSig: {dirB, "other"},
	} {
		archive := filepath.Join(tmp, variant+".tar.gz")
		ctl("bundle", "build", build.dir, "--out", archive)
		if build.key != "" {
			ctl("bundle", "sign", "--key", filepath.Join(tmp, build.key), archive)
		}
		archives[variant] = archive
		if variant == variantA || variant == variantB {
			b, err := bundle.ReadArchiveFile(archive)
			require.NoError(t, err)
			digests[variant], err = bundle.Digest(b)
			require.NoError(t, err)
		}
	}
	require.NotEqual(t, digests[variantA], digests[variantB])

	// The live source: an archive the test replaces, signature first, before each reload.
	live := filepath.Join(tmp, "live.tar.gz")
	install := func(variant string) {
		t.Helper()
		sig, err := os.ReadFile(archives[variant] + ".sig")
		if os.IsNotExist(err) {
			require.NoError(t, os.Remove(live+".sig"))
		} else {
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(live+".sig.tmp", sig, 0o644))
			require.NoError(t, os.Rename(live+".sig.tmp", live+".sig"))
		}
		data, err := os.ReadFile(archives[variant])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(live+".tmp", data, 0o644))
		require.NoError(t, os.Rename(live+".tmp", live))
	}
	install(variantA)

	const hostToken, adminToken = "tok-host", "tok-admin"
	principals := filepath.Join(tmp, "principals.json")
	require.NoError(t, os.WriteFile(principals, []byte(`{"principals": [
		{"name": "host", "token_sha256": "`+service.HashToken(hostToken)+`", "tenant_id": "acme", "type": "system", "id": "orchestrator"},
		{"name": "admin", "token_sha256": "`+service.HashToken(adminToken)+`", "tenant_id": "acme", "type": "human", "id": "ops", "admin": true}]}`), 0o600))
	logPath := filepath.Join(tmp, "serve.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	defer logFile.Close()
	cmd := exec.Command(bin, "--db", filepath.Join(tmp, "store"), "--bundle", live, "serve", "--addr", "127.0.0.1:0",
		"--principals", principals, "--bundle-key", filepath.Join(tmp, "signer.pub"), "--eval-timeout", "30s")
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	serveLog := func() string {
		b, _ := os.ReadFile(logPath)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		return string(b)
	}
	var exitErr error
	exited := make(chan struct{})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := regexp.MustCompile(`^serving handoff on (http://127\.0\.0\.1:\d+) `).FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		exitErr = cmd.Wait()
		close(exited)
	}()
	defer func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	var base string
	select {
	case base = <-addr:
	case <-exited:
		t.Fatalf("serve exited before listening: %v\n%s", exitErr, serveLog())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve not listening after 60s:\n%s", serveLog())
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients + 2}, Timeout: time.Minute}
	call := func(method, path, token string, body []byte) (int, []byte, error) {
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		return resp.StatusCode, out, err
	}

	// The clients: starts of new workflows, every other one for Blockco.
	type answer struct {
		blockco    bool
		digest     string
		outcome    engine.Outcome
		start, end time.Time
	}
	var (
		stop    atomic.Bool
		failed  atomic.Pointer[error]
		mu      sync.Mutex
		answers []answer
		wg      sync.WaitGroup
	)
	for c := range clients {
		wg.Go(func() {
			for n := 0; !stop.Load() && failed.Load() == nil; n++ {
				client := "Brightbrew"
				if n%2 == 1 {
					client = "Blockco"
				}
				id := fmt.Sprintf("c%d-%d", c, n)
				body := fmt.Sprintf(`{"request_id": "req-%s", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-%s", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "s-%s", "brief": {"client": %q, "business_objective": "Grow trial sign-ups", "product": "Cold Brew"}, "workflow_id": "wf-%s"}`, id, id, id, client, id)
				start := time.Now()
				status, out, err := call("POST", "/v1/requests", hostToken, []byte(body))
				end := time.Now()
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("status %d: %s", status, out)
				}
				var d engine.Decision
				if err == nil {
					err = json.Unmarshal(out, &d)
				}
				if err != nil {
					err = fmt.Errorf("request %s: %w", id, err)
					failed.CompareAndSwap(nil, &err)
					return
				}
				mu.Lock()
				answers = append(answers, answer{blockco: client == "Blockco", digest: d.Policy.BundleDigest, outcome: d.Outcome, start: start, end: end})
				mu.Unlock()
			}
		})
	}

	// The reloads, by the API and by SIGHUP in turn, each after a steady spell.
	type reload struct {
		At, Via, Result, Error, Digest string
		Previous                       string `json:"previous_digest"`
	}
	lastAt := ""
	bundleState := func() (reload, string) {
		t.Helper()
		status, out, err := call("GET", "/v1/admin/bundle", adminToken, nil)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status, "%s", out)
		var st struct {
			Digest     string
			LastReload *reload `json:"last_reload"`
		}
		require.NoError(t, json.Unmarshal(out, &st))
		if st.LastReload == nil {
			return reload{}, st.Digest
		}
		return *st.LastReload, st.Digest
	}
	var switches [][2]time.Time
	want := map[string]int{}
	current := variantA
	for i := range reloads {
		time.Sleep(150 * time.Millisecond)
		variant := reloadCycle[i%len(reloadCycle)]
		install(variant)
		began := time.Now()
		var r reload
		if i%2 == 0 {
			status, out, err := call("POST", "/v1/admin/bundle/reload", adminToken, nil)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(out, &r), "%s", out)
			wantStatus := http.StatusOK
			if r.Result != service.ReloadOK {
				wantStatus = http.StatusUnprocessableEntity
			}
			require.Equal(t, wantStatus, status, "%s", out)
			require.Equal(t, "api", r.Via)
		} else {
			require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
			require.Eventually(t, func() bool {
				r, _ = bundleState()
				return r.At != lastAt
			}, time.Minute, 10*time.Millisecond, "reload %d: no reload after SIGHUP:\n%s", i, serveLog())
			require.Equal(t, "signal", r.Via)
		}
		switches = append(switches, [2]time.Time{began, time.Now()})
		lastAt = r.At

		wantResult := service.ReloadOK
		switch variant {
		case variantA, variantB:
			current = variant
		case variantInvalid:
			wantResult = service.ReloadInvalid
		case variantUnsigned:
			wantResult = service.ReloadUnsigned
		case variantBadSig:
			wantResult = service.ReloadBadSignature
		}
		want[wantResult]++
		require.Equal(t, wantResult, r.Result, "reload %d (%s): %s", i, variant, r.Error)
		if wantResult != service.ReloadOK {
			require.NotEmpty(t, r.Error, "reload %d (%s): a refusal says why", i, variant)
		}
		require.Equal(t, digests[current], r.Digest, "reload %d (%s): the bundle deciding after it", i, variant)
		_, live := bundleState()
		require.Equal(t, digests[current], live, "reload %d (%s): GET /v1/admin/bundle", i, variant)
		if p := failed.Load(); p != nil {
			break
		}
	}
	time.Sleep(150 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if p := failed.Load(); p != nil {
		t.Fatalf("a request failed during the reloads: %v\nserve's log:\n%s", *p, serveLog())
	}

	// Every decision was made whole by A or B, with that bundle's outcome.
	seen := map[string]int{}
	for _, a := range answers {
		wantOutcome := engine.Allow
		switch a.digest {
		case digests[variantA]:
		case digests[variantB]:
			if a.blockco {
				wantOutcome = engine.Block
			}
		default:
			t.Fatalf("a decision names the bundle %s, neither A (%s) nor B (%s)", a.digest, digests[variantA], digests[variantB])
		}
		require.Equal(t, wantOutcome, a.outcome, "a decision of %s for Blockco=%v", a.digest, a.blockco)
		seen[a.digest]++
	}
	assert.Positive(t, seen[digests[variantA]], "decisions by A")
	assert.Positive(t, seen[digests[variantB]], "decisions by B")

	// The refusals are in the metrics and the log.
	status, metrics, err := call("GET", "/metrics", "", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	for _, result := range []string{service.ReloadOK, service.ReloadInvalid, service.ReloadUnsigned, service.ReloadBadSignature} {
		assert.Contains(t, string(metrics), fmt.Sprintf("handoff_bundle_reloads_total{result=%q} %d\n", result, want[result]), result)
	}
	assert.Contains(t, string(metrics), fmt.Sprintf("handoff_bundle_info{digest=%q} 1\n", digests[current]))

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-exited:
		require.NoError(t, exitErr, "serve exits 0 after SIGTERM:\n%s", serveLog())
	case <-time.After(time.Minute):
		t.Fatal("serve did not exit after SIGTERM")
	}
	logs, err := os.ReadFile(logPath)
	require.NoError(t, err)
	refused := want[service.ReloadInvalid] + want[service.ReloadUnsigned] + want[service.ReloadBadSignature]
	assert.Equal(t, refused, strings.Count(string(logs), `"msg":"bundle reload refused: the previous bundle keeps deciding"`))
	assert.Equal(t, want[service.ReloadOK], strings.Count(string(logs), `"msg":"bundle reloaded"`))

	// Latency: the requests in flight while a reload ran (its compile included) against
	// the others.
	var steady, during []time.Duration
	for _, a := range answers {
		overlaps := slices.ContainsFunc(switches, func(w [2]time.Time) bool { return a.start.Before(w[1]) && a.end.After(w[0]) })
		if overlaps {
			during = append(during, a.end.Sub(a.start))
		} else {
			steady = append(steady, a.end.Sub(a.start))
		}
	}
	p := func(ds []time.Duration, q float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return ds[min(len(ds)-1, int(q*float64(len(ds))))]
	}
	ratio := func(a, b time.Duration) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	t.Logf("%d reloads (%v), %d clients, %d decisions (%d by A, %d by B)", reloads, want, clients, len(answers), seen[digests[variantA]], seen[digests[variantB]])
	t.Logf("steady: %d requests, p50 %v, p99 %v; during a switch: %d requests, p50 %v, p99 %v; p99 ratio %.2f, p50 ratio %.2f",
		len(steady), p(steady, 0.5), p(steady, 0.99), len(during), p(during, 0.5), p(during, 0.99),
		ratio(p(during, 0.99), p(steady, 0.99)), ratio(p(during, 0.5), p(steady, 0.5)))
}
