package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/store"
)

// TestMixedRun plays the campaign scenarios (handoffs, reviews, approvals, revisions,
// retries, cancels) on many workflows of 8 tenants at once, with cross-tenant attempts
// mixed in, while a checker asserts the invariants all the while: every chain verifies
// and its length is its head's; no approved artifact version ever changes; no record,
// state or reference of a tenant names another tenant. At the end each workflow's chain
// holds exactly the requests played on it. HANDOFF_MIXED_SECONDS sets the duration (CI: 120).
func TestMixedRun(t *testing.T) {
	seconds := size(t, "HANDOFF_MIXED_SECONDS", 120, 3)
	const tenants, writers = 8, 16
	eng, _ := openDisk(t)
	ctx := context.Background()
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)

	var (
		mu      sync.Mutex
		played  = map[string]int{} // tenant/workflow → requests recorded on it
		failed  atomic.Pointer[error]
		stop    atomic.Bool
		attacks atomic.Int64
		steps   atomic.Int64
	)
	fail := func(err error) {
		failed.CompareAndSwap(nil, &err)
		stop.Store(true)
	}
	tenantName := func(i int) string { return fmt.Sprintf("tenant-%d", i) }

	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			tenant := tenantName(w % tenants)
			for n := 0; !stop.Load() && time.Now().Before(deadline); n++ {
				p := &play{f: loadFlow(t, campaignFlows[rng.IntN(len(campaignFlows))]),
					tenant: tenant, workflow: fmt.Sprintf("%s.w%d.%d", tenant, w, n)}
				key := tenant + "/" + p.workflow
				for !p.done() && !stop.Load() {
					body, err := p.body(ctx, eng)
					if err != nil {
						fail(err)
						return
					}
					if p.next > 0 && rng.IntN(8) == 0 {
						// Another tenant sends this step to this workflow.
						other := tenantName((w + 1 + rng.IntN(tenants-1)) % tenants)
						d, err := p.submit(ctx, eng, rewriteTenant(body, other))
						if err != nil {
							fail(err)
							return
						}
						if d.Outcome == engine.Allow || !slicesContain(d.Codes(), "TENANT_MISMATCH") {
							fail(fmt.Errorf("cross-tenant request to %s answered %s %v", key, d.Outcome, d.Codes()))
							return
						}
						attacks.Add(1)
					}
					d, err := p.submit(ctx, eng, body)
					if err != nil {
						fail(err)
						return
					}
					if err := p.observe(d); err != nil {
						fail(err)
						return
					}
					steps.Add(1)
					mu.Lock()
					played[key]++
					mu.Unlock()
				}
			}
		}()
	}

	c := newChecker(eng, tenants, tenantName)
	checks := 0
	for !stop.Load() && time.Now().Before(deadline) {
		if err := c.scan(ctx, false); err != nil {
			fail(err)
			break
		}
		checks++
	}
	stop.Store(true)
	wg.Wait()
	if p := failed.Load(); p != nil {
		require.NoError(t, *p)
	}
	require.NoError(t, c.scan(ctx, true))
	total := 0
	for key, n := range played {
		tenant, wf, _ := strings.Cut(key, "/")
		require.Equal(t, uint64(n), c.length[key], "chain length of %s/%s", tenant, wf)
		total += n
	}
	t.Logf("%d requests on %d workflows of %d tenants in %ds (%d cross-tenant attempts, all refused); %d full checks, %d approved versions watched",
		steps.Load(), len(played), tenants, seconds, attacks.Load(), checks+1, len(c.approved))
	require.NotZero(t, total)
}

func slicesContain(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// rewriteTenant changes a request's tenant_id.
func rewriteTenant(body []byte, tenant string) []byte {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		panic(err)
	}
	m["tenant_id"] = tenant
	b, _ := json.Marshal(m)
	return b
}

// checker walks every tenant's workflows and asserts the invariants.
type checker struct {
	eng      *engine.Engine
	tenants  []string
	approved map[string]string // tenant/workflow/type/version → ref hash and content hash
	length   map[string]uint64 // tenant/workflow → chain length at the last scan
}

func newChecker(eng *engine.Engine, n int, name func(int) string) *checker {
	c := &checker{eng: eng, approved: map[string]string{}, length: map[string]uint64{}}
	for i := range n {
		c.tenants = append(c.tenants, name(i))
	}
	return c
}

// scan checks every workflow once. With final set, nothing is writing, so the chain
// length read from the history must equal the head exactly.
func (c *checker) scan(ctx context.Context, final bool) error {
	for _, tenant := range c.tenants {
		var wfs []string
		heads := map[string]store.Head{}
		err := c.eng.Workflows(ctx, tenant, func(w string, h store.Head) error {
			wfs = append(wfs, w)
			heads[w] = h
			return nil
		})
		if err != nil {
			return err
		}
		// One pass verifies the tenant's chains, idempotency records and index entries
		// (the verification of each workflow would read the whole index each time).
		reps, err := c.eng.VerifyTenant(ctx, tenant)
		if err != nil {
			return err
		}
		verified := map[string]store.VerifyReport{}
		for _, r := range reps {
			verified[r.Workflow] = r
		}
		for _, wf := range wfs {
			rep, ok := verified[wf]
			if !ok {
				return fmt.Errorf("%s/%s: not verified", tenant, wf)
			}
			if err := c.workflow(ctx, tenant, wf, heads[wf], rep, final); err != nil {
				return fmt.Errorf("%s/%s: %w", tenant, wf, err)
			}
		}
	}
	return nil
}

func (c *checker) workflow(ctx context.Context, tenant, wf string, head store.Head, rep store.VerifyReport, final bool) error {
	key := tenant + "/" + wf
	if !rep.OK {
		return fmt.Errorf("chain broken at %d: %s", rep.BrokenSeq, rep.Problem)
	}
	if rep.Records < head.Seq || rep.Records < c.length[key] {
		return fmt.Errorf("chain shrank: %d records, head seen at %d, %d before", rep.Records, head.Seq, c.length[key])
	}
	var decisions uint64
	var lastVersion uint64
	err := c.eng.History(ctx, tenant, wf, func(e engine.Entry) error {
		decisions++
		d := e.Decision
		if d == nil {
			return fmt.Errorf("record %d holds no decision", e.Seq)
		}
		if d.TenantID != tenant || d.WorkflowID != wf {
			return fmt.Errorf("record %d is a decision of %s/%s", e.Seq, d.TenantID, d.WorkflowID)
		}
		if d.StateVersion != lastVersion && d.StateVersion != lastVersion+1 {
			return fmt.Errorf("record %d: state_version %d after %d", e.Seq, d.StateVersion, lastVersion)
		}
		lastVersion = d.StateVersion
		return c.foreign(fmt.Sprintf("record %d", e.Seq), tenant, e.Request, mustJSON(d))
	})
	if err != nil {
		return err
	}
	if decisions < rep.Records {
		return fmt.Errorf("%d decisions, %d records", decisions, rep.Records)
	}
	if final && (decisions != rep.Records || decisions != head.Seq) {
		return fmt.Errorf("%d decisions, %d records, head at %d", decisions, rep.Records, head.Seq)
	}
	c.length[key] = decisions

	st, err := c.eng.State(ctx, tenant, wf)
	if err != nil {
		return err
	}
	if st.TenantID != tenant || st.WorkflowID != wf {
		return fmt.Errorf("state of %s/%s", st.TenantID, st.WorkflowID)
	}
	if err := c.foreign("state", tenant, mustJSON(st)); err != nil {
		return err
	}
	for typ, h := range st.Artifacts {
		for ver, v := range h.Versions {
			for _, ref := range v.BasedOn {
				src := st.Artifacts[ref.Type]
				if src == nil || src.Versions[fmt.Sprint(ref.Version)] == nil ||
					src.Versions[fmt.Sprint(ref.Version)].Ref.Hash != ref.Hash {
					return fmt.Errorf("%s v%s is based on %s v%v, which is not this workflow's", typ, ver, ref.Type, ref.Version)
				}
			}
			akey := fmt.Sprintf("%s/%s/%s", key, typ, ver)
			content, err := canonjson.Hash(v.Content)
			if err != nil {
				return err
			}
			seal := v.Ref.Hash + " " + content
			if was, ok := c.approved[akey]; ok && was != seal {
				return fmt.Errorf("approved %s v%s changed", typ, ver)
			}
			if v.Status == "approved" {
				c.approved[akey] = seal
			}
		}
	}
	return nil
}

// foreign fails when any of docs names a tenant other than tenant.
func (c *checker) foreign(what, tenant string, docs ...[]byte) error {
	for _, doc := range docs {
		for _, other := range c.tenants {
			if other != tenant && strings.Contains(string(doc), other) {
				return fmt.Errorf("%s names tenant %s", what, other)
			}
		}
	}
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(errors.New("encode: " + err.Error()))
	}
	return b
}
