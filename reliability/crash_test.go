package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

func init() { children["crash"] = crashChild }

// The crash child's protocol, one line each on stdout:
//
//	READY                                  the engine is open
//	S <tenant> <workflow> <request_id> <body, base64>   about to Submit
//	A <request_id> <decision JSON, base64>              Submit returned this decision
//	E <request_id> <error>                              Submit returned an error
//
// A request is acknowledged only once its whole A line has reached the parent.

const (
	crashTenants   = 8
	crashWriters   = 16
	crashWorkflows = 64
)

// crashChild runs the real engine on HANDOFF_DIR with 16 writers over 64 workflows in 8
// tenants until it is killed. Workflow ids carry HANDOFF_RUN so every run starts new ones.
func crashChild() int {
	ctx := context.Background()
	run := os.Getenv("HANDOFF_RUN")
	seed, _ := strconv.ParseUint(os.Getenv("HANDOFF_SEED"), 10, 64)
	eng, err := engine.Open(ctx, engine.Options{Dir: os.Getenv("HANDOFF_DIR"), EvalTimeout: testEvalTimeout, LazyPolicies: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var outMu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	emit := func(format string, args ...any) {
		outMu.Lock()
		fmt.Fprintf(out, format+"\n", args...)
		_ = out.Flush()
		outMu.Unlock()
	}
	emit("READY")
	var wg sync.WaitGroup
	for w := range crashWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			// Each writer owns 4 workflow slots and interleaves their steps.
			var plays []*play
			per := crashWorkflows / crashWriters
			gen := 0
			newPlay := func(slot int) *play {
				gen++
				f, err := readFlow(campaignFlows[rng.IntN(len(campaignFlows))])
				if err != nil {
					panic(err)
				}
				tenant := fmt.Sprintf("tenant-%d", (w*per+slot)%crashTenants)
				return &play{f: f, tenant: tenant, workflow: fmt.Sprintf("r%s.w%d.s%d.g%d", run, w, slot, gen)}
			}
			for slot := range per {
				plays = append(plays, newPlay(slot))
			}
			for {
				slot := rng.IntN(per)
				p := plays[slot]
				if p.done() {
					p = newPlay(slot)
					plays[slot] = p
				}
				body, err := p.body(ctx, eng)
				if err != nil {
					panic(err)
				}
				rid := requestIDOf(body)
				emit("S %s %s %s %s", p.tenant, p.workflow, rid, base64.StdEncoding.EncodeToString(body))
				d, err := p.submit(ctx, eng, body)
				if err != nil {
					emit("E %s %s", rid, strings.ReplaceAll(err.Error(), "\n", " "))
					continue
				}
				b, _ := json.Marshal(d)
				emit("A %s %s", rid, base64.StdEncoding.EncodeToString(b))
				_ = p.observe(d)
			}
		}()
	}
	wg.Wait()
	return 0
}

func requestIDOf(body []byte) string {
	var m struct {
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal(body, &m)
	return m.RequestID
}

// sentRequest is a request the child was about to submit.
type sentRequest struct {
	tenant, workflow string
	body             []byte
}

// crashRun is what the parent learned from one child before killing it.
type crashRun struct {
	ready bool
	sent  map[string]sentRequest
	acked map[string][]byte // request_id → the decision, as the child encoded it
	order []string          // request ids in the order sent
	errs  []string
}

// readChild parses the child's complete lines; a line cut by the kill is ignored.
func readChild(r io.Reader, ready chan<- struct{}) *crashRun {
	cr := &crashRun{sent: map[string]sentRequest{}, acked: map[string][]byte{}}
	data, _ := io.ReadAll(newNotifier(r, ready))
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn last line
		}
		line := string(data[:i])
		data = data[i+1:]
		f := strings.SplitN(line, " ", 5)
		switch f[0] {
		case "READY":
			cr.ready = true
		case "S":
			body, _ := base64.StdEncoding.DecodeString(f[4])
			cr.sent[f[3]] = sentRequest{tenant: f[1], workflow: f[2], body: body}
			cr.order = append(cr.order, f[3])
		case "A":
			d, _ := base64.StdEncoding.DecodeString(f[2])
			cr.acked[f[1]] = d
		case "E":
			cr.errs = append(cr.errs, line)
		}
	}
	return cr
}

// notifier passes reads through and closes ready once READY went by.
type notifier struct {
	r     io.Reader
	ready chan<- struct{}
	buf   []byte
}

func newNotifier(r io.Reader, ready chan<- struct{}) io.Reader { return &notifier{r: r, ready: ready} }

func (n *notifier) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if n.ready != nil {
		n.buf = append(n.buf, p[:k]...)
		if bytes.Contains(n.buf, []byte("READY\n")) {
			close(n.ready)
			n.ready, n.buf = nil, nil
		}
	}
	return k, err
}

// TestCrashKill9 starts the engine in a child process writing hard, kills it with
// SIGKILL at a random moment, reopens the store and checks that nothing acknowledged was
// lost or changed, nothing is torn and every chain is whole. HANDOFF_CRASH_KILLS sets the
// number of kills (CI: 100).
func TestCrashKill9(t *testing.T) {
	kills := size(t, "HANDOFF_CRASH_KILLS", 100, 3)
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var totalAcked, totalInflight, totalRecordedInflight, beforeReady int
	for k := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "HANDOFF_CHILD=crash", "HANDOFF_DIR="+dir,
			"HANDOFF_RUN="+strconv.Itoa(k), fmt.Sprintf("HANDOFF_SEED=%d", rng.Uint64()))
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		ready := make(chan struct{})
		result := make(chan *crashRun, 1)
		go func() { result <- readChild(stdout, ready) }()

		// One kill in ten lands while the engine is still opening the store.
		if rng.IntN(10) == 0 {
			time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		} else {
			select {
			case <-ready:
			case <-time.After(30 * time.Second):
				t.Fatalf("kill %d: child not ready: %s", k, stderr.String())
			}
			time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		}
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		cr := <-result
		require.Empty(t, cr.errs, "kill %d: Submit failed in the child", k)
		if !cr.ready {
			beforeReady++
		}

		acked, inflight, recorded := checkAfterCrash(t, dir, k, cr, k == kills-1 || k%10 == 9)
		totalAcked += acked
		totalInflight += inflight
		totalRecordedInflight += recorded
	}
	t.Logf("%d kills (%d before the engine was open): %d acknowledged decisions all found byte-identical; %d requests in flight at a kill, %d of them recorded whole, the rest not at all",
		kills, beforeReady, totalAcked, totalInflight, totalRecordedInflight)
}

// checkAfterCrash reopens the store after kill k and checks it. With full set it checks
// every workflow of the store, otherwise those the run wrote to.
func checkAfterCrash(t *testing.T, dir string, k int, cr *crashRun, full bool) (acked, inflight, recordedInflight int) {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err, "kill %d: reopen", k)
	defer eng.Close()

	touched := map[string]bool{}
	for _, s := range cr.sent {
		touched[s.tenant+"/"+s.workflow] = true
	}
	where := fmt.Sprintf("kill %d", k)
	recorded := checkChains(t, eng, where, touched, full)

	// Nothing acknowledged is missing: each is recorded, and submitting it again returns
	// it byte for byte. Requests in flight are recorded whole or not at all; recorded ones
	// are answered from the record.
	for _, rid := range cr.order {
		s := cr.sent[rid]
		want, wasAcked := cr.acked[rid]
		rec, isRecorded := recorded[rid]
		if wasAcked {
			acked++
			require.True(t, isRecorded, "kill %d: acknowledged request %s is missing", k, rid)
		} else {
			inflight++
			if isRecorded {
				recordedInflight++
			}
		}
		if isRecorded {
			require.Equal(t, s.workflow, rec.WorkflowID)
			require.Equal(t, s.tenant, rec.TenantID)
		}
		d, err := eng.Submit(ctx, s.body)
		require.NoError(t, err)
		got, err := json.Marshal(d)
		require.NoError(t, err)
		switch {
		case wasAcked:
			require.Equal(t, string(want), string(got), "kill %d: request %s answered differently after the crash", k, rid)
			fallthrough
		case isRecorded:
			fromLog, err := json.Marshal(rec)
			require.NoError(t, err)
			require.Equal(t, string(fromLog), string(got), "kill %d: request %s: idempotency record and log disagree", k, rid)
		}
	}
	return acked, inflight, recordedInflight
}

// checkChains checks the chains of the crash tenants after a crash: every chain of the
// store verifies, and every one (or, without all, those touched names as
// tenant/workflow) holds whole decisions with contiguous state versions matching its
// head and snapshot. It returns the recorded decisions by request_id. where
// names the check in messages.
func checkChains(t *testing.T, eng *engine.Engine, where string, touched map[string]bool, all bool) map[string]*engine.Decision {
	t.Helper()
	ctx := context.Background()
	recorded := map[string]*engine.Decision{} // request_id → recorded decision
	// Every kill verifies every chain, fold, idempotency record and index entry of the
	// store in one pass (the verification of each workflow would read the whole index
	// each time).
	reps, err := eng.VerifyAll(ctx)
	require.NoError(t, err)
	verified := map[string]store.VerifyReport{}
	for _, r := range reps {
		require.True(t, r.OK, "%s: chain %s/%s broken at %d: %s", where, r.Tenant, r.Workflow, r.BrokenSeq, r.Problem)
		verified[r.Tenant+"/"+r.Workflow] = r
	}
	for ti := range crashTenants {
		tenant := fmt.Sprintf("tenant-%d", ti)
		heads := map[string]store.Head{}
		require.NoError(t, eng.Workflows(ctx, tenant, func(w string, h store.Head) error {
			heads[w] = h
			return nil
		}))
		for wf, head := range heads {
			if !all && !touched[tenant+"/"+wf] {
				continue
			}
			rep, ok := verified[tenant+"/"+wf]
			require.True(t, ok, "%s: chain %s/%s not verified", where, tenant, wf)
			var n, version uint64
			require.NoError(t, eng.History(ctx, tenant, wf, func(e engine.Entry) error {
				n++
				d := e.Decision
				require.NotNil(t, d, "%s: %s/%s record %d holds no decision", where, tenant, wf, e.Seq)
				require.Contains(t, []uint64{version, version + 1}, d.StateVersion,
					"%s: %s/%s record %d: state versions not contiguous", where, tenant, wf, e.Seq)
				version = d.StateVersion
				_, dup := recorded[d.RequestID]
				require.False(t, dup, "%s: request %s recorded twice", where, d.RequestID)
				recorded[d.RequestID] = d
				return nil
			}))
			require.Equal(t, head.Seq, n, "%s: %s/%s head and chain length", where, tenant, wf)
			require.Equal(t, rep.Records, n, "%s: %s/%s records verified and read", where, tenant, wf)
			require.Equal(t, head.StateVersion, version, "%s: %s/%s head and last decision's version", where, tenant, wf)
			st, err := eng.State(ctx, tenant, wf)
			require.NoError(t, err)
			require.Equal(t, version, st.StateVersion, "%s: %s/%s snapshot version", where, tenant, wf)
		}
	}
	return recorded
}
