package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// testEvalTimeout replaces the 2 s policy deadline in the suites: under -race with 64
// goroutines on 2 cores an evaluation can take longer, and a POLICY_TIMEOUT block (the
// engine failing closed, as it should) is not what these suites measure.
const testEvalTimeout = time.Minute

// openDisk opens an engine on a fresh store directory, compiling the policies of a pack
// when first needed: the suites exercise the engine and the store, not the compiler.
func openDisk(t testing.TB) (*engine.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	eng, err := engine.Open(context.Background(), engine.Options{Dir: dir, EvalTimeout: testEvalTimeout, LazyPolicies: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	return eng, dir
}

// together runs fn(i) for i in [0, n) on n goroutines released at the same moment.
func together(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-gate
			fn(i)
		}()
	}
	ready.Wait()
	close(gate)
	done.Wait()
}

// startWorkflow submits the happy path's start for tenant and workflow.
func startWorkflow(t testing.TB, eng *engine.Engine, tenant, workflow string) {
	t.Helper()
	f := loadFlow(t, "01-happy-path")
	d, err := eng.Submit(context.Background(), f.mustStep(t, eng, 0, tenant, workflow, 0))
	require.NoError(t, err)
	require.Equal(t, engine.Allow, d.Outcome, "%v", d.Codes())
}

// chainOf returns the decisions recorded in a workflow's log, after checking the chain
// verifies and its length is the head's.
func chainOf(t testing.TB, eng *engine.Engine, tenant, workflow string) []*engine.Decision {
	t.Helper()
	ctx := context.Background()
	var out []*engine.Decision
	require.NoError(t, eng.History(ctx, tenant, workflow, func(e engine.Entry) error {
		out = append(out, e.Decision)
		return nil
	}))
	rep, err := eng.Verify(ctx, tenant, workflow)
	require.NoError(t, err)
	require.True(t, rep.OK, "chain %s/%s: %s", tenant, workflow, rep.Problem)
	require.Equal(t, uint64(len(out)), rep.Records, "records walked, decisions read")
	var head store.Head
	require.NoError(t, eng.Workflows(ctx, tenant, func(w string, h store.Head) error {
		if w == workflow {
			head = h
		}
		return nil
	}))
	require.Equal(t, uint64(len(out)), head.Seq, "head seq, chain length")
	return out
}

// TestSameVersionRace: of 64 requests submitted together at the same expected version,
// exactly one commits and the other 63 are blocked with STALE_STATE_VERSION, round after
// round. HANDOFF_RACE_ROUNDS sets the number of rounds (CI: 500 under -race).
func TestSameVersionRace(t *testing.T) {
	rounds := size(t, "HANDOFF_RACE_ROUNDS", 500, 3)
	const writers = 64
	eng, _ := openDisk(t)
	ctx := context.Background()
	// The request raced is a human's cancel: small, and allowed on a new workflow.
	f := loadFlow(t, "20-failure-retry-cancel")
	cancel := f.index(t, "approver cancels")
	for round := range rounds {
		wf := fmt.Sprintf("wf-race-%d", round)
		startWorkflow(t, eng, "acme", wf)
		bodies := make([][]byte, writers)
		for i := range writers {
			bodies[i] = edit(t, f.mustStep(t, eng, cancel, "acme", wf, 1), func(m map[string]any) {
				m["request_id"] = fmt.Sprintf("%s.g%d", wf, i)
				m["expected_version"] = 1
			})
		}
		decisions := make([]*engine.Decision, writers)
		errs := make([]error, writers)
		together(writers, func(i int) { decisions[i], errs[i] = eng.Submit(ctx, bodies[i]) })

		winners := 0
		for i, d := range decisions {
			require.NoError(t, errs[i], "round %d writer %d", round, i)
			if d.Outcome == engine.Allow {
				winners++
				assert.Equal(t, uint64(2), d.StateVersion)
				continue
			}
			require.Equal(t, engine.Block, d.Outcome, "round %d writer %d: %v", round, i, d.Codes())
			// Decided again on the winner's state, a loser may break more rules than the
			// version check (the workflow is now terminal); the version check is always
			// among them.
			require.Contains(t, d.Codes(), "STALE_STATE_VERSION", "round %d writer %d", round, i)
			require.Equal(t, uint64(2), d.StateVersion, "a block reports the version it saw")
		}
		require.Equal(t, 1, winners, "round %d: commits", round)

		var n int
		require.NoError(t, eng.History(ctx, "acme", wf, func(engine.Entry) error { n++; return nil }))
		require.Equal(t, 1+writers, n, "round %d: start, one commit and 63 recorded blocks", round)
		st, err := eng.State(ctx, "acme", wf)
		require.NoError(t, err)
		require.Equal(t, uint64(2), st.StateVersion)
		require.Equal(t, "CANCELLED", st.Status)
	}
	// Every chain, fold, idempotency record and index entry, once: verifying each
	// workflow in its round would read the growing index every round.
	reps, err := eng.VerifyTenant(ctx, "acme")
	require.NoError(t, err)
	workflows := 0
	for _, r := range reps {
		require.True(t, r.OK, "chain %q: %s", r.Workflow, r.Problem)
		if r.Workflow != "" { // "" is the tenant's audit stream
			workflows++
			require.Equal(t, uint64(1+writers), r.Records, "chain %s", r.Workflow)
		}
	}
	require.Equal(t, rounds, workflows)
}

// TestSameRequestIDConcurrently: 32 concurrent submissions of one request, for a start
// (which creates the workflow) and for a handoff, give one record and 32 identical
// answers, byte for byte.
func TestSameRequestIDConcurrently(t *testing.T) {
	rounds := size(t, "HANDOFF_IDEM_ROUNDS", 2, 1)
	const writers = 32
	eng, _ := openDisk(t)
	ctx := context.Background()
	f := loadFlow(t, "01-happy-path")
	for round := range rounds {
		wf := fmt.Sprintf("wf-idem-%d", round)
		for step := range 2 {
			version := uint64(step) // 0 before the start, 1 after
			body := f.mustStep(t, eng, step, "acme", wf, version)
			answers := make([][]byte, writers)
			errs := make([]error, writers)
			together(writers, func(i int) {
				d, err := eng.Submit(ctx, body)
				errs[i] = err
				if err == nil {
					answers[i], errs[i] = json.Marshal(d)
				}
			})
			for i := range writers {
				require.NoError(t, errs[i], "round %d step %d writer %d", round, step, i)
				require.Equal(t, string(answers[0]), string(answers[i]), "round %d step %d writer %d", round, step, i)
			}
			var d engine.Decision
			require.NoError(t, json.Unmarshal(answers[0], &d))
			require.Equal(t, engine.Allow, d.Outcome, "%v", d.Codes())
			chain := chainOf(t, eng, "acme", wf)
			require.Len(t, chain, step+1, "round %d step %d: one record per request", round, step)
			require.Equal(t, d.DecisionID, chain[step].DecisionID)
		}
	}
}

// TestSameRequestIDDifferentPayloads: 32 different requests sharing one request_id,
// submitted together: exactly one is decided and recorded, the other 31 are blocked with
// IDEMPOTENCY_KEY_REUSED, and each payload gets the same answer when submitted again.
func TestSameRequestIDDifferentPayloads(t *testing.T) {
	rounds := size(t, "HANDOFF_IDEM_ROUNDS", 2, 1)
	const writers = 32
	eng, _ := openDisk(t)
	ctx := context.Background()
	f := loadFlow(t, "01-happy-path")
	for round := range rounds {
		wf := fmt.Sprintf("wf-reuse-%d", round)
		startWorkflow(t, eng, "acme", wf)
		bodies := make([][]byte, writers)
		for i := range writers {
			bodies[i] = edit(t, f.mustStep(t, eng, 1, "acme", wf, 1), func(m map[string]any) {
				m["output_summary"] = fmt.Sprintf("research brief, variant %d", i)
			})
		}
		decisions := make([]*engine.Decision, writers)
		errs := make([]error, writers)
		together(writers, func(i int) { decisions[i], errs[i] = eng.Submit(ctx, bodies[i]) })
		winner := -1
		for i, d := range decisions {
			require.NoError(t, errs[i])
			if d.Outcome == engine.Allow {
				require.Equal(t, -1, winner, "round %d: two payloads decided under one request_id", round)
				winner = i
				continue
			}
			require.Equal(t, engine.Block, d.Outcome)
			require.Equal(t, []string{"IDEMPOTENCY_KEY_REUSED"}, d.Codes(), "round %d writer %d", round, i)
		}
		require.NotEqual(t, -1, winner, "round %d: no payload decided", round)
		chain := chainOf(t, eng, "acme", wf)
		require.Len(t, chain, 2, "round %d: start and the one decided payload", round)
		require.Equal(t, decisions[winner].DecisionID, chain[1].DecisionID)

		// Again, one at a time: the winner gets its decision back, the others are refused.
		for i, b := range bodies {
			d, err := eng.Submit(ctx, b)
			require.NoError(t, err)
			if i == winner {
				require.Equal(t, decisions[winner].DecisionID, d.DecisionID)
			} else {
				require.Equal(t, []string{"IDEMPOTENCY_KEY_REUSED"}, d.Codes())
			}
		}
		require.Len(t, chainOf(t, eng, "acme", wf), 2)
	}
}
