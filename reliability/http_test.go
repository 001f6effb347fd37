package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/store"
)

// TestHTTPLoad plays the four packs' scenarios over real HTTP on loopback: many clients
// at once, each its own workflows, interleaved, on 8 tenants. A scenario joins the load
// when it plays as written at the clock, under another tenant and workflow id, on an
// engine of its own first (portableFlows). Every decision a client got a 200 for must
// then be in the store under its decision id, every chain verifies (so no workflow has
// two records for one state version), and every record of a workflow's chain is a
// decision its client was answered (a scenario's repeated request is answered with the
// decision recorded before, and a refused one goes to the audit stream: counting
// requests would not give the chain's length). The server is an InsecureDev one:
// the scenarios' actors are many, and authentication has tests of its own (service).
// HANDOFF_HTTP_SECONDS sets the duration (CI: 120), HANDOFF_HTTP_CLIENTS the clients
// (CI: 64).
func TestHTTPLoad(t *testing.T) {
	seconds := size(t, "HANDOFF_HTTP_SECONDS", 120, 3)
	clients := size(t, "HANDOFF_HTTP_CLIENTS", 64, 8)
	const tenants = 8
	eng, _ := openDisk(t)
	srv := httptest.NewServer(service.New(eng, service.Options{InsecureDev: true}))
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = clients
	untimed := portableFlows(t)

	ctx := context.Background()
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var (
		mu       sync.Mutex
		acked    = map[string]bool{}        // decision ids answered 200 and recorded
		played   = map[[2]string]struct{}{} // tenant, workflow
		failed   atomic.Pointer[error]
		requests atomic.Int64
	)
	fail := func(err error) { failed.CompareAndSwap(nil, &err) }
	post := func(body []byte) (*engine.Decision, error) {
		resp, err := client.Post(srv.URL+"/v1/requests", "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("status %d: %s", resp.StatusCode, out)
		}
		var d engine.Decision
		return &d, json.Unmarshal(out, &d)
	}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 11))
			tenant := fmt.Sprintf("tenant-%d", c%tenants)
			for n := 0; failed.Load() == nil && time.Now().Before(deadline); n++ {
				p := &play{f: loadFlow(t, untimed[rng.IntN(len(untimed))]), tenant: tenant, workflow: fmt.Sprintf("%s.h%d.%d", tenant, c, n)}
				for !p.done() && failed.Load() == nil {
					body, err := p.body(ctx, eng)
					if err != nil {
						fail(err)
						return
					}
					d, err := post(body)
					if err != nil {
						fail(fmt.Errorf("%s/%s step %d: %w", p.tenant, p.workflow, p.next, err))
						return
					}
					requests.Add(1)
					if err := p.observe(d); err != nil {
						fail(err)
						return
					}
					if d.Recorded {
						mu.Lock()
						acked[d.DecisionID] = true
						played[[2]string{p.tenant, p.workflow}] = struct{}{}
						mu.Unlock()
					}
				}
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		require.NoError(t, *p)
	}

	for id := range acked {
		ent, err := eng.Decision(ctx, id)
		require.NoError(t, err, "decision %s was answered 200 and is not in the store", id)
		require.Equal(t, id, ent.Decision.DecisionID)
	}
	reports, err := eng.VerifyAll(ctx)
	require.NoError(t, err)
	for _, r := range reports {
		require.True(t, r.OK, "%+v", r)
	}
	for key := range played {
		err := eng.History(ctx, key[0], key[1], func(ent engine.Entry) error {
			if !acked[ent.Decision.DecisionID] {
				return fmt.Errorf("record %d of %s/%s holds decision %s, which no client was answered", ent.Seq, key[0], key[1], ent.Decision.DecisionID)
			}
			return nil
		})
		if !errors.Is(err, store.ErrNotFound) { // a workflow whose start was refused has no chain
			require.NoError(t, err)
		}
	}
	t.Logf("%d requests over HTTP from %d clients in %ds: %d decisions acknowledged and found, %d workflows, %d chains verified",
		requests.Load(), clients, seconds, len(acked), len(played), len(reports))
}

// portableFlows are the shipped scenarios of every pack that a client over HTTP can play
// on any tenant: played at the clock (a client cannot set the time a decision is made
// at), under another tenant and workflow id, on an engine of their own, they give the
// outcomes they expect. Unless full(), the first four of each pack.
func portableFlows(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*", "scenarios", "*"+scenario.Ext))
	require.NoError(t, err)
	eng, err := engine.Open(context.Background(), engine.Options{InMemory: true, EvalTimeout: testEvalTimeout, LazyPolicies: true})
	require.NoError(t, err)
	defer eng.Close()
	var out []string
	perPack := map[string]int{}
	for i, file := range files {
		pack := filepath.Base(filepath.Dir(filepath.Dir(file)))
		if !full() && perPack[pack] >= 4 {
			continue // a short load plays few workflows: a handful of each pack's will do
		}
		name := pack + "/" + strings.TrimSuffix(filepath.Base(file), scenario.Ext)
		f, err := readFlow(name)
		if err != nil {
			continue // a step that is not a JSON object (a malformed request on purpose)
		}
		p := &play{f: f, tenant: "tenant-q", workflow: fmt.Sprintf("q.%d", i)}
		ok := true
		for !p.done() && ok {
			body, err := p.body(context.Background(), eng)
			if err != nil {
				ok = false
				break
			}
			d, err := eng.Submit(context.Background(), body)
			ok = err == nil && p.observe(d) == nil
		}
		if ok {
			out = append(out, name)
			perPack[pack]++
		}
	}
	t.Logf("scenarios in the load, by pack: %v", perPack)
	for _, pack := range []string{"assessment", "campaign", "support", "video"} {
		require.NotZero(t, perPack[pack], "no scenario of pack %s plays on another tenant", pack)
	}
	return out
}
