package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// TestServeCrashKill9 kills the real `handoffctl serve` with SIGKILL while clients play
// the untimed campaign scenarios against it over HTTP, restarts it on the same store and
// kills it again. After each kill the store is reopened: every decision a client got a
// 200 for (in this round or an earlier one) must be recorded as answered, and every
// chain verifies. HANDOFF_SERVE_KILLS sets the number of kills (CI: 20),
// HANDOFF_SERVE_CLIENTS the clients (CI: 16).
func TestServeCrashKill9(t *testing.T) {
	kills := size(t, "HANDOFF_SERVE_KILLS", 20, 2)
	clients := size(t, "HANDOFF_SERVE_CLIENTS", 16, 4)
	const tenants = 8
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "handoffctl")
	build := exec.Command("go", "build", "-o", bin, "../cmd/handoffctl")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build handoffctl:\n%s", out)
	dir := filepath.Join(tmp, "store")
	require.NoError(t, os.Mkdir(dir, 0o755))

	untimed := untimedCampaignFlows(t)

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	acked := map[string]*engine.Decision{} // decision id → the 200 answer, over all rounds
	var totalInflight int64
	for k := range kills {
		round, inflight := serveAndKill(t, bin, dir, k, clients, tenants, untimed, seed, rng)
		for id, d := range round {
			acked[id] = d
		}
		totalInflight += inflight
		checkAfterServeCrash(t, dir, k, acked)
	}
	t.Logf("%d kills of handoffctl serve, %d clients: %d decisions acknowledged with 200 all found after restart; %d requests in flight at the kills",
		kills, clients, len(acked), totalInflight)
}

// serveAndKill starts serve on dir, runs the clients against it and kills it with
// SIGKILL at a random moment. It returns the decisions acknowledged with 200 and
// recorded=true, and how many requests were in flight at the kill.
func serveAndKill(t *testing.T, bin, dir string, k, clients, tenants int, untimed []string, seed uint64, rng *rand.Rand) (map[string]*engine.Decision, int64) {
	t.Helper()
	// The access log (one line a call) goes to a file: a pipe would have to be drained.
	logPath := filepath.Join(filepath.Dir(dir), fmt.Sprintf("serve-%d.log", k))
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	defer logFile.Close()
	stderrTail := func() string {
		b, _ := os.ReadFile(logPath)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		return string(b)
	}

	cmd := exec.Command(bin, "--db", dir, "serve", "--addr", "127.0.0.1:0", "--insecure-dev", "--eval-timeout", "30s") // a loaded machine gives slow decisions, not POLICY_TIMEOUT
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	addr := make(chan string, 1)
	stdoutDone := make(chan struct{})
	go func() {
		defer close(stdoutDone)
		listening := regexp.MustCompile(`^serving handoff on (http://127\.0\.0\.1:\d+) `)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var base string
	select {
	case base = <-addr:
	case <-stdoutDone:
		_ = cmd.Wait()
		t.Fatalf("kill %d: serve exited before listening:\n%s", k, stderrTail())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-stdoutDone
		_ = cmd.Wait()
		t.Fatalf("kill %d: serve not listening after 60s:\n%s", k, stderrTail())
	}
	listening := time.Now()

	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	sc := &serveClient{http: &http.Client{Transport: transport, Timeout: time.Minute}, base: base}
	ctx := context.Background()
	var (
		mu       sync.Mutex
		round    = map[string]*engine.Decision{}
		killed   atomic.Bool
		inflight atomic.Int64
		failed   atomic.Pointer[error]
		wg       sync.WaitGroup
	)
	// stop says whether a client stops on err: quietly when the kill broke the connection,
	// recording a failure otherwise (a status other than 200 is never the kill's doing).
	stop := func(err error) {
		var te *transportError
		if killed.Load() && errors.As(err, &te) {
			return
		}
		failed.CompareAndSwap(nil, &err)
	}
	for c := range clients {
		wg.Go(func() {
			crng := rand.New(rand.NewPCG(seed, uint64(k*clients+c)))
			tenant := fmt.Sprintf("tenant-%d", c%tenants)
			for n := 0; !killed.Load() && failed.Load() == nil; n++ {
				// The kill index in the workflow id keeps every round's workflows new.
				p := &play{f: loadFlow(t, untimed[crng.IntN(len(untimed))]), tenant: tenant, workflow: fmt.Sprintf("%s.k%d.c%d.%d", tenant, k, c, n)}
				for !p.done() && !killed.Load() && failed.Load() == nil {
					body, err := p.body(ctx, sc)
					if err != nil {
						stop(fmt.Errorf("%s/%s step %d: render: %w", p.tenant, p.workflow, p.next, err))
						return
					}
					inflight.Add(1)
					d, err := sc.submit(body)
					inflight.Add(-1)
					if err != nil {
						stop(fmt.Errorf("%s/%s step %d: %w", p.tenant, p.workflow, p.next, err))
						return
					}
					if err := p.observe(d); err != nil {
						stop(err)
						return
					}
					if d.Recorded {
						mu.Lock()
						round[d.DecisionID] = d
						mu.Unlock()
					}
				}
			}
		})
	}

	time.Sleep(time.Until(listening.Add(time.Duration(300+rng.IntN(1200)) * time.Millisecond)))
	// The flag goes up before the kill, so an error seen while it is down is the server's.
	killed.Store(true)
	atKill := inflight.Load()
	require.NoError(t, cmd.Process.Kill())
	wg.Wait()
	<-stdoutDone
	err = cmd.Wait()
	if p := failed.Load(); p != nil {
		t.Fatalf("kill %d: %v\nserve's log:\n%s", k, *p, stderrTail())
	}
	// Serve must have died of the kill, not of something of its own before it.
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "kill %d: serve's exit", k)
	ws, ok := exit.Sys().(syscall.WaitStatus)
	require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL, "kill %d: serve ended with %v, not SIGKILL:\n%s", k, err, stderrTail())
	return round, atKill
}

// checkAfterServeCrash reopens the store after kill k: each decision acknowledged so far
// is found by its id as it was answered, and every chain verifies.
func checkAfterServeCrash(t *testing.T, dir string, k int, acked map[string]*engine.Decision) {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err, "kill %d: reopen", k)
	for id, want := range acked {
		ent, err := eng.Decision(ctx, id)
		require.NoError(t, err, "kill %d: decision %s was answered 200 and is not in the store", k, id)
		got := ent.Decision
		require.NotNil(t, got, "kill %d: decision %s", k, id)
		require.Equal(t, id, got.DecisionID, "kill %d", k)
		require.Equal(t, want.TenantID, got.TenantID, "kill %d: decision %s", k, id)
		require.Equal(t, want.WorkflowID, got.WorkflowID, "kill %d: decision %s", k, id)
		require.Equal(t, want.RequestID, got.RequestID, "kill %d: decision %s", k, id)
		require.Equal(t, want.Outcome, got.Outcome, "kill %d: decision %s", k, id)
		require.Equal(t, want.StateVersion, got.StateVersion, "kill %d: decision %s", k, id)
	}
	reports, err := eng.VerifyAll(ctx)
	require.NoError(t, err, "kill %d: verify", k)
	for _, r := range reports {
		require.True(t, r.OK, "kill %d: chain %s/%s broken at %d: %s", k, r.Tenant, r.Workflow, r.BrokenSeq, r.Problem)
	}
	require.NoError(t, eng.Close(), "kill %d: close", k)
}

// serveClient talks to a running serve. It is the stateReader rendering a step needs, as
// the test cannot open the store the server holds locked.
type serveClient struct {
	http *http.Client
	base string
}

// transportError is a call that got no complete answer: what a kill does to a client.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// call does a request and returns the status and the whole body.
func (s *serveClient) call(req *http.Request) (int, []byte, error) {
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, nil, &transportError{err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, &transportError{err}
	}
	return resp.StatusCode, b, nil
}

func (s *serveClient) submit(body []byte) (*engine.Decision, error) {
	req, err := http.NewRequest(http.MethodPost, s.base+"/v1/requests", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	status, b, err := s.call(req)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("POST /v1/requests: status %d: %s", status, b)
	}
	var d engine.Decision
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	if d.Recorded && d.DecisionID == "" {
		return nil, fmt.Errorf("recorded decision without an id: %s", b)
	}
	return &d, nil
}

func (s *serveClient) State(ctx context.Context, tenant, workflow string) (*engine.State, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/v1/tenants/"+url.PathEscape(tenant)+"/workflows/"+url.PathEscape(workflow), nil)
	if err != nil {
		return nil, err
	}
	status, b, err := s.call(req)
	switch {
	case err != nil:
		return nil, err
	case status == http.StatusNotFound:
		return nil, fmt.Errorf("%s/%s: %w", tenant, workflow, store.ErrNotFound)
	case status != http.StatusOK:
		return nil, fmt.Errorf("GET state %s/%s: status %d: %s", tenant, workflow, status, b)
	}
	var st engine.State
	return &st, json.Unmarshal(b, &st)
}
