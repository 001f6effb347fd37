package reliability

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// pgProcs is how many engine processes the PostgreSQL race suites run on one store.
const pgProcs = 4

// TestPostgresProcessesRace: 4 engine processes on one PostgreSQL store submit a cancel
// of the same workflow at the same expected version at the same moment, round after
// round: exactly one process commits the move to version 2, the other three are blocked
// with STALE_STATE_VERSION (decided again on the winner's state and recorded, as in one
// process), and the chain is the start, the winner and the three blocks, verified. Only
// the key of a workflow's record seqs in the database keeps two processes from both
// appending their next record (the canary_pgkey build drops it).
// HANDOFF_PG_RACE_ROUNDS sets the number of rounds (CI: 500).
func TestPostgresProcessesRace(t *testing.T) {
	rounds := size(t, "HANDOFF_PG_RACE_ROUNDS", 500, 20)
	u := pgSchema(t)
	eng := openPostgres(t, u)
	kids := startSubmitters(t, u, pgProcs)
	ctx := context.Background()
	// The request raced is a human's cancel: small, and allowed on a new workflow.
	f := loadFlow(t, "20-failure-retry-cancel")
	cancel := f.index(t, "approver cancels")
	for round := range rounds {
		wf := fmt.Sprintf("wf-pgrace-%d", round)
		startWorkflow(t, eng, "acme", wf)
		bodies := make([][][]byte, pgProcs)
		for p := range bodies {
			bodies[p] = [][]byte{edit(t, f.mustStep(t, eng, cancel, "acme", wf, 1), func(m map[string]any) {
				m["request_id"] = fmt.Sprintf("%s.p%d", wf, p)
				m["expected_version"] = 1
			})}
		}
		answers := submitTogether(t, kids, bodies)

		answered := map[string]bool{} // decision ids
		var winner *engine.Decision
		for p := range answers {
			a := answers[p][0]
			require.Empty(t, a.err, "round %d process %d: Submit failed", round, p)
			d := a.decision
			require.True(t, d.Recorded, "round %d process %d: answer not recorded", round, p)
			answered[d.DecisionID] = true
			if d.Outcome == engine.Allow {
				if winner != nil {
					t.Fatalf("round %d: two processes committed at version 1: decisions %s and %s", round, winner.DecisionID, d.DecisionID)
				}
				winner = d
				require.Equal(t, uint64(2), d.StateVersion, "round %d: winner's version", round)
				continue
			}
			require.Equal(t, engine.Block, d.Outcome, "round %d process %d: %v", round, p, d.Codes())
			// Decided again on the winner's state, a loser may break more rules than the
			// version check (the workflow is now terminal); the version check is always
			// among them.
			require.Contains(t, d.Codes(), "STALE_STATE_VERSION", "round %d process %d", round, p)
			require.Equal(t, uint64(2), d.StateVersion, "a block reports the version it saw")
		}
		require.NotNil(t, winner, "round %d: no process committed", round)
		require.Len(t, answered, pgProcs, "round %d: decision ids of the answers", round)

		// The chain is the start, then the winner, then the losers' blocks: exactly the
		// decisions the processes were answered, only the winner moving the version.
		chain := chainOf(t, eng, "acme", wf)
		require.Len(t, chain, 1+pgProcs, "round %d: start, one commit and %d recorded blocks", round, pgProcs-1)
		require.Equal(t, uint64(1), chain[0].StateVersion)
		require.Equal(t, winner.DecisionID, chain[1].DecisionID, "round %d: record after the start", round)
		for i, d := range chain[1:] {
			require.True(t, answered[d.DecisionID], "round %d record %d: a decision no process was answered", round, i+2)
			require.Equal(t, uint64(2), d.StateVersion, "round %d record %d", round, i+2)
			if i > 0 {
				require.Equal(t, engine.Block, d.Outcome, "round %d record %d", round, i+2)
			}
		}
		st, err := eng.State(ctx, "acme", wf)
		require.NoError(t, err)
		require.Equal(t, uint64(2), st.StateVersion)
		require.Equal(t, "CANCELLED", st.Status)
	}
	for _, c := range kids {
		c.finish(t)
	}
	verifyStore(t, eng)
	t.Logf("%d rounds of %d processes: one commit and %d STALE_STATE_VERSION blocks each", rounds, pgProcs, pgProcs-1)
}

// TestPostgresSameRequestIDAcrossProcesses: one request submitted by 4 engine processes
// at once, twice in each, for a start (which creates the workflow) and for a handoff,
// round after round: every one of the 8 gets the same answer byte for byte, and the
// workflow has one record per request, the one answered. HANDOFF_PG_IDEM_ROUNDS sets
// the number of rounds (CI: 100).
func TestPostgresSameRequestIDAcrossProcesses(t *testing.T) {
	rounds := size(t, "HANDOFF_PG_IDEM_ROUNDS", 100, 5)
	const copies = 2 // submissions of the request in each process
	u := pgSchema(t)
	eng := openPostgres(t, u)
	kids := startSubmitters(t, u, pgProcs)
	f := loadFlow(t, "01-happy-path")
	for round := range rounds {
		wf := fmt.Sprintf("wf-pgidem-%d", round)
		for step := range 2 {
			version := uint64(step) // 0 before the start, 1 after
			body := f.mustStep(t, eng, step, "acme", wf, version)
			bodies := make([][][]byte, pgProcs)
			for p := range bodies {
				for range copies {
					bodies[p] = append(bodies[p], body)
				}
			}
			answers := submitTogether(t, kids, bodies)
			first := answers[0][0]
			for p := range answers {
				for i, a := range answers[p] {
					require.Empty(t, a.err, "round %d step %d process %d copy %d: Submit failed", round, step, p, i)
					require.Equal(t, string(first.raw), string(a.raw), "round %d step %d process %d copy %d", round, step, p, i)
				}
			}
			d := first.decision
			require.Equal(t, engine.Allow, d.Outcome, "%v", d.Codes())
			chain := chainOf(t, eng, "acme", wf)
			require.Len(t, chain, step+1, "round %d step %d: one record per request", round, step)
			require.Equal(t, d.DecisionID, chain[step].DecisionID)
			require.Equal(t, string(first.raw), string(mustJSON(chain[step])), "round %d step %d: answer and record", round, step)
		}
	}
	for _, c := range kids {
		c.finish(t)
	}
	verifyStore(t, eng)
}
