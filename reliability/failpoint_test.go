//go:build failpoints

package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/failpoint"
)

func init() { children["failpoint"] = failpointChild }

var failpoints = []string{"engine/before-decide", "engine/after-decide", "engine/before-commit",
	"engine/after-commit", "store/snapshot-write"}

// failpointChild submits the research handoff with the point HANDOFF_FAILPOINT panicking
// inside the store's committer, which takes the process down.
func failpointChild() int {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Dir: os.Getenv("HANDOFF_DIR")})
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

// TestFailpoints injects a panic and an error at each named point of the submit path
// while a handoff that would be allowed is submitted: no allow is ever returned without
// a durable record, the workflow is never left half written (chain, head, snapshot and
// idempotency key agree), and submitting the request again gives one recorded answer.
func TestFailpoints(t *testing.T) {
	ctx := context.Background()
	f := loadFlow(t, "01-happy-path")
	for _, point := range failpoints {
		for _, action := range []string{failpoint.Error, failpoint.Panic} {
			t.Run(point+"/"+action, func(t *testing.T) {
				dir := t.TempDir()
				eng, err := engine.Open(ctx, engine.Options{Dir: dir})
				require.NoError(t, err)
				startWorkflow(t, eng, "acme", "wf-fp")
				body := f.mustStep(t, eng, 1, "acme", "wf-fp", 1)

				var d *engine.Decision
				if point == "store/snapshot-write" && action == failpoint.Panic {
					// The store's committer panics: the process dies. Do it in a child.
					require.NoError(t, eng.Close())
					cmd := exec.Command(os.Args[0], "-test.run=^$")
					cmd.Env = append(os.Environ(), "HANDOFF_CHILD=failpoint", "HANDOFF_DIR="+dir, "HANDOFF_FAILPOINT="+point)
					out, err := cmd.CombinedOutput()
					var exit *exec.ExitError
					require.True(t, errors.As(err, &exit), "the child survived: %s", out)
					require.Contains(t, string(out), "failpoint "+point)
					eng, err = engine.Open(ctx, engine.Options{Dir: dir})
					require.NoError(t, err)
				} else {
					failpoint.Enable(point, action)
					func() {
						defer func() {
							if p := recover(); p != nil {
								require.Equal(t, action, failpoint.Panic, "unexpected panic %v", p)
							}
						}()
						d, err = eng.Submit(ctx, body)
						if action == failpoint.Error {
							require.Error(t, err)
							require.Nil(t, d)
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
				// Only a fault after the commit leaves the request recorded.
				require.Equal(t, point == "engine/after-commit", recorded, "recorded after a fault at %s", point)

				again, err := eng.Submit(ctx, body)
				require.NoError(t, err)
				require.Equal(t, engine.Allow, again.Outcome, "%v", again.Codes())
				chain = chainOf(t, eng, "acme", "wf-fp")
				require.Len(t, chain, 2, "the request is recorded exactly once")
				require.Equal(t, chain[1].DecisionID, again.DecisionID)

				// Reopened, the store says the same.
				require.NoError(t, eng.Close())
				eng, err = engine.Open(ctx, engine.Options{Dir: dir})
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
