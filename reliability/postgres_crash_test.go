package reliability

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pgLoadProcs is how many load processes write to one PostgreSQL store at once.
const pgLoadProcs = 2

// TestPostgresCrashKill9 runs two engine processes writing hard to one PostgreSQL store
// and kills each with SIGKILL at a random moment (the second a little after the first,
// so one writes alone for a while), then checks the store from this process: nothing
// acknowledged was lost or changed, nothing is torn, every chain verifies and every
// idempotency key answers with its record. New processes are started and killed again.
// HANDOFF_PG_CRASH_KILLS sets the number of rounds of kills (CI: 50).
func TestPostgresCrashKill9(t *testing.T) {
	kills := size(t, "HANDOFF_PG_CRASH_KILLS", 50, 3)
	u := pgSchema(t)
	eng := openPostgres(t, u)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var totalAcked, totalInflight, totalRecordedInflight, beforeReady int
	for k := range kills {
		kids := make([]*pgChild, pgLoadProcs)
		runs := make([]*loadRun, pgLoadProcs)
		for i := range kids {
			kids[i] = startPgChild(t, fmt.Sprintf("kill %d process %d", k, i), "pgload", u,
				fmt.Sprintf("HANDOFF_RUN=%d.%d", k, i), fmt.Sprintf("HANDOFF_SEED=%d", rng.Uint64()))
			runs[i] = readLoad(kids[i])
		}
		// One kill in ten lands while the engines are still opening.
		if rng.IntN(10) == 0 {
			time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		} else {
			for i, c := range kids {
				runs[i].waitReady(t, c)
			}
			time.Sleep(time.Duration(20+rng.IntN(800)) * time.Millisecond)
		}
		for i, c := range kids {
			if i > 0 {
				time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
			}
			c.kill9(t)
		}
		for i, lr := range runs {
			<-lr.done
			require.Empty(t, lr.errs, "kill %d process %d: Submit failed", k, i)
			require.Empty(t, lr.readErrs, "kill %d process %d: reading a state failed", k, i)
			if !lr.ready {
				beforeReady++
			}
		}

		acked, inflight, recorded := checkPgLog(t, eng, fmt.Sprintf("kill %d", k), runs, k == kills-1 || k%10 == 9)
		totalAcked += acked
		totalInflight += inflight
		totalRecordedInflight += recorded
	}
	t.Logf("%d rounds of %d processes killed (%d processes before their engine was open): %d acknowledged decisions all found byte-identical; %d requests in flight at a kill, %d of them recorded whole, the rest not at all",
		kills, pgLoadProcs, beforeReady, totalAcked, totalInflight, totalRecordedInflight)
}
