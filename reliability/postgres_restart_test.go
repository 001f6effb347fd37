package reliability

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
)

// RestartEnv names the variable holding the shell command that restarts the test
// database, e.g. "pg_ctlcluster 15 main restart".
const RestartEnv = "HANDOFF_TEST_POSTGRES_RESTART"

// recoverWithin bounds how long an engine may take to decide again once its database is
// back: its pool replaces the broken connections when it next needs them.
const recoverWithin = time.Minute

// restartCommand is the command that restarts the test database. Without it the test
// says so and is skipped: it stops the server every other test uses, so it runs only
// where it is asked for, alone (.ci/run gives it a step of its own and checks that it
// passed).
func restartCommand(t *testing.T) string {
	t.Helper()
	pgtest.Require(t)
	if cmd := os.Getenv(RestartEnv); cmd != "" {
		return cmd
	}
	t.Skipf("no way to restart PostgreSQL: set %s to a shell command that restarts the database %s names", RestartEnv, pgtest.Env)
	return ""
}

// TestPostgresRestart restarts the database under two engine processes writing hard to
// it. While it is away their requests fail with an error, never a decision; once it is
// back the same engines, not reopened, decide again by themselves; and at the end
// nothing acknowledged is missing, every request that failed is recorded whole or not
// at all, and every chain verifies. It restarts the server every test shares: run it
// alone. HANDOFF_PG_RESTARTS sets the number of restarts (CI: 2).
func TestPostgresRestart(t *testing.T) {
	restart := restartCommand(t)
	restarts := size(t, "HANDOFF_PG_RESTARTS", 2, 1)
	u := pgSchema(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	kids := make([]*pgChild, pgLoadProcs)
	runs := make([]*loadRun, pgLoadProcs)
	for i := range kids {
		kids[i] = startPgChild(t, fmt.Sprintf("process %d", i), "pgload", u,
			fmt.Sprintf("HANDOFF_RUN=restart.%d", i), fmt.Sprintf("HANDOFF_SEED=%d", rng.Uint64()))
		runs[i] = readLoad(kids[i])
	}
	for i, c := range kids {
		runs[i].waitReady(t, c)
	}
	// Each engine decides some requests first, so the restart lands on a running load,
	// and again after each restart, without being reopened.
	waitDecided := func(when string) {
		t.Helper()
		for _, lr := range runs {
			lr.setMark()
		}
		deadline := time.Now().Add(recoverWithin)
		for i, lr := range runs {
			for lr.acksSinceMark() < 20 {
				select {
				case <-lr.done:
					t.Fatalf("%s: %s ended: %s", when, kids[i].name, tail(kids[i].stderr))
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %s decided %d requests sent in %v, want 20: %s", when, kids[i].name, lr.acksSinceMark(), recoverWithin, tail(kids[i].stderr))
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	waitDecided("before the restarts")
	for r := range restarts {
		out, err := exec.Command("sh", "-c", restart).CombinedOutput()
		require.NoError(t, err, "restart %d: %s: %s", r, restart, out)
		waitDecided(fmt.Sprintf("after restart %d", r))
	}
	for i, c := range kids {
		c.finish(t)
		<-runs[i].done
	}

	// The engines saw the database go away: calls failed, with an error and no decision
	// (an answer is a decision, and every one is checked below to be recorded).
	var failedSubmits, unavailable, failedReads, answeredLater int
	other := map[string]int{} // errors not matching store.ErrUnavailable, for the log
	for _, lr := range runs {
		failedSubmits += len(lr.errs)
		failedReads += len(lr.readErrs)
		for _, line := range lr.errs {
			_, msg, _ := strings.Cut(line[2:], " ") // E <request_id> <error>
			if strings.HasPrefix(msg, "[unavailable] ") {
				unavailable++
			} else {
				other[msg]++
			}
		}
		for rid := range lr.failed {
			if _, ok := lr.acked[rid]; ok {
				answeredLater++
			}
		}
	}
	require.NotZero(t, failedSubmits, "no Submit failed while the database restarted %d times", restarts)
	for msg, n := range other {
		t.Logf("%d Submits failed with an error not matching store.ErrUnavailable: %s", n, msg)
	}

	eng := openPostgres(t, u)
	acked, unanswered, recorded := checkPgLog(t, eng, "after the restarts", runs, true)
	t.Logf("%d restarts under %d processes: %d Submits failed (%d with store.ErrUnavailable) and %d state reads; %d failed requests answered when sent again; %d acknowledged decisions all found byte-identical; %d requests never answered, %d of them recorded whole, the rest not at all",
		restarts, pgLoadProcs, failedSubmits, unavailable, failedReads, answeredLater, acked, unanswered, recorded)
}
