//go:build failpoints

package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/failpoint"
)

func init() { children["failpoint"] = failpointChild }

// failpoints are the named points of the submit path, in the order a request meets them.
var failpoints = []string{"engine/before-decide", "engine/evaluate", "engine/after-decide",
	"engine/before-commit", "engine/after-commit", "store/snapshot-write"}

const (
	// fpEvalTimeout is the policy deadline of the engine a timeout is injected into.
	fpEvalTimeout = time.Second
	// fpDeadline is the deadline of the Submit a timeout is injected into.
	fpDeadline = 2 * time.Second
)

// faultOutcome is what a fault of action at point must leave: block, the code of the
// block Submit returns (empty: Submit returns an error and no decision), and recorded,
// what the workflow then holds for the request (empty: nothing; "allow": the handoff
// allowed; otherwise the code of a recorded block).
func faultOutcome(point, action string) (block, recorded string) {
	switch {
	case point == "engine/after-commit":
		return "", "allow" // committed; the answer is lost, not the decision
	case point == "engine/evaluate" && action == failpoint.Error:
		return "POLICY_ERROR", "POLICY_ERROR" // the policy could not decide: fail closed
	case point == "engine/evaluate" && action == failpoint.Timeout:
		return "POLICY_TIMEOUT", "POLICY_TIMEOUT" // the policy deadline passed: fail closed
	}
	return "", ""
}

// failpointChild submits the research handoff with the point HANDOFF_FAILPOINT panicking
// inside the store's committer, which takes the process down.
func failpointChild() int {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Dir: os.Getenv("HANDOFF_DIR"), LazyPolicies: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := readFlow("01-happy-path")
	if err != nil {
		return 1
	}
	body, err := f.step(ctx, eng, 1, "acme", "wf-fp", 1)
	if err != nil {
		return 1
	}
	failpoint.Enable(os.Getenv("HANDOFF_FAILPOINT"), failpoint.Panic)
	d, err := eng.Submit(ctx, body)
	fmt.Printf("returned %v %v\n", d, err) // not reached: the committer panics
	return 0
}

// TestFailpoints injects a panic, an error and a timeout at each named point of the
// submit path while a handoff that would be allowed is submitted: no allow is ever
// returned without a durable record, the workflow is never left half written (chain,
// head, snapshot and idempotency key agree), each fault ends as faultOutcome says, and
// submitting the request again gives one recorded answer. A timeout stalls the stage
// until the deadline that bounds it: the policy deadline (Options.EvalTimeout) inside
// the evaluation, the caller's context everywhere else.
func TestFailpoints(t *testing.T) {
	f := loadFlow(t, "01-happy-path")
	for _, point := range failpoints {
		for _, action := range []string{failpoint.Error, failpoint.Panic, failpoint.Timeout} {
			t.Run(point+"/"+action, func(t *testing.T) {
				ctx := context.Background()
				opts := engine.Options{Dir: t.TempDir(), EvalTimeout: testEvalTimeout, LazyPolicies: true}
				if action == failpoint.Timeout {
					opts.EvalTimeout = fpEvalTimeout
				}
				eng, err := engine.Open(ctx, opts)
				require.NoError(t, err)
				startWorkflow(t, eng, "acme", "wf-fp")
				body := f.mustStep(t, eng, 1, "acme", "wf-fp", 1)
				wantBlock, wantRecorded := faultOutcome(point, action)

				var d *engine.Decision
				if point == "store/snapshot-write" && action == failpoint.Panic {
					// The store's committer panics: the process dies. Do it in a child.
					require.NoError(t, eng.Close())
					cmd := exec.Command(os.Args[0], "-test.run=^$")
					cmd.Env = append(os.Environ(), "HANDOFF_CHILD=failpoint", "HANDOFF_DIR="+opts.Dir, "HANDOFF_FAILPOINT="+point)
					out, err := cmd.CombinedOutput()
					var exit *exec.ExitError
					require.True(t, errors.As(err, &exit), "the child survived: %s", out)
					require.Contains(t, string(out), "failpoint "+point)
					eng, err = engine.Open(ctx, opts)
					require.NoError(t, err)
				} else {
					failpoint.Enable(point, action)
					func() {
						defer func() {
							if p := recover(); p != nil {
								require.Equal(t, action, failpoint.Panic, "unexpected panic %v", p)
							}
						}()
						sctx, start := ctx, time.Now()
						if action == failpoint.Timeout {
							var cancel context.CancelFunc
							sctx, cancel = context.WithTimeout(ctx, fpDeadline)
							defer cancel()
						}
						d, err = eng.Submit(sctx, body)
						require.NotEqual(t, failpoint.Panic, action, "the panic did not reach the caller")
						if wantBlock != "" {
							require.NoError(t, err)
							require.Equal(t, engine.Block, d.Outcome)
							require.Equal(t, []string{wantBlock}, d.Codes())
							require.True(t, d.Recorded)
							return
						}
						require.Error(t, err)
						require.Nil(t, d)
						if action == failpoint.Timeout {
							require.ErrorIs(t, err, context.DeadlineExceeded)
							require.GreaterOrEqual(t, time.Since(start), fpDeadline, "the stage did not stall")
						}
					}()
					failpoint.Disable()
				}
				defer func() { _ = eng.Close() }()

				chain := chainOf(t, eng, "acme", "wf-fp")
				st, err := eng.State(ctx, "acme", "wf-fp")
				require.NoError(t, err)
				last := chain[len(chain)-1]
				require.Equal(t, last.StateVersion, st.StateVersion, "snapshot and chain")
				recorded := len(chain) == 2
				if d != nil && d.Outcome == engine.Allow {
					require.True(t, recorded, "an allow was returned without a record")
				}
				require.Equal(t, wantRecorded != "", recorded, "recorded after a fault at %s", point)
				switch wantRecorded {
				case "":
					require.Equal(t, uint64(1), st.StateVersion, "nothing changed")
				case "allow":
					require.Equal(t, engine.Allow, last.Outcome)
				default:
					require.Equal(t, []string{wantRecorded}, last.Codes())
					require.Equal(t, uint64(1), st.StateVersion, "a block changes nothing")
				}
				// The idempotency key agrees with the chain: a dry run answers with the
				// record exactly when there is one.
				ev, err := eng.Evaluate(ctx, body)
				require.NoError(t, err)
				require.Equal(t, recorded, ev.Recorded, "idempotency key and chain disagree")

				again, err := eng.Submit(ctx, body)
				require.NoError(t, err)
				if wantRecorded == "" || wantRecorded == "allow" {
					require.Equal(t, engine.Allow, again.Outcome, "%v", again.Codes())
				} else {
					require.Equal(t, []string{wantRecorded}, again.Codes(), "the recorded block is the answer")
				}
				chain = chainOf(t, eng, "acme", "wf-fp")
				require.Len(t, chain, 2, "the request is recorded exactly once")
				require.Equal(t, chain[1].DecisionID, again.DecisionID)

				// Reopened, the store says the same.
				require.NoError(t, eng.Close())
				eng, err = engine.Open(ctx, opts)
				require.NoError(t, err)
				require.Len(t, chainOf(t, eng, "acme", "wf-fp"), 2)
				reps, err := eng.VerifyAll(ctx)
				require.NoError(t, err)
				for _, r := range reps {
					require.True(t, r.OK, "%s/%s: %s", r.Tenant, r.Workflow, r.Problem)
				}
			})
		}
	}
}
