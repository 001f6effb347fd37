package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Decider decides as the Engine does, on the state it is given, and the same Input
// gives the same decision byte for byte.
func TestDecideIsTheEnginesDecision(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	e := openToy(t, toyAllow)
	dc := e.Decider()

	start, next, err := dc.Decide(ctx, Input{Request: []byte(toyStart), Now: at, DecisionID: "d-1"})
	require.NoError(t, err)
	require.NotNil(t, next, "a start creates the workflow")
	recorded, err := e.SubmitAt(ctx, []byte(toyStart), at)
	require.NoError(t, err)
	assertSameDecision(t, recorded, start)
	stored, err := e.State(ctx, "t1", "wf-1")
	require.NoError(t, err)
	assertSameJSON(t, stored, next, "the state Decide returns is the state Submit records")

	h := []byte(toyHandoff("r-h1", 1, ""))
	first, after, err := dc.Decide(ctx, Input{Request: h, State: next, Now: at, DecisionID: "d-2"})
	require.NoError(t, err)
	again, _, err := dc.Decide(ctx, Input{Request: h, State: next, Now: at, DecisionID: "d-2"})
	require.NoError(t, err)
	assertSameJSON(t, first, again, "the same input, the same decision")
	recorded, err = e.SubmitAt(ctx, h, at)
	require.NoError(t, err)
	assertSameDecision(t, recorded, first)
	stored, err = e.State(ctx, "t1", "wf-1")
	require.NoError(t, err)
	assertSameJSON(t, stored, after, "the state Decide returns is the state Submit records")
	assert.Equal(t, uint64(1), next.StateVersion, "Decide folds into a copy: the state given is unchanged")
}

// A request is decided only on the state of its own tenant and workflow.
func TestDecideChecksTheStateItIsGiven(t *testing.T) {
	ctx := context.Background()
	dc := openToy(t, toyAllow).Decider()
	_, st, err := dc.Decide(ctx, Input{Request: []byte(toyStart), Now: time.Now()})
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		body  string
		state *State
		code  string
	}{
		"no state":         {toyHandoff("r-1", 1, ""), nil, "WORKFLOW_NOT_FOUND"},
		"another tenant":   {strings.Replace(toyHandoff("r-1", 1, ""), `"tenant_id":"t1"`, `"tenant_id":"t2"`, 1), st, "TENANT_MISMATCH"},
		"another workflow": {strings.Replace(toyHandoff("r-1", 1, ""), `"workflow_id":"wf-1"`, `"workflow_id":"wf-2"`, 1), st, "WORKFLOW_NOT_FOUND"},
	} {
		t.Run(name, func(t *testing.T) {
			d, next, err := dc.Decide(ctx, Input{Request: []byte(tc.body), State: tc.state, Now: time.Now()})
			require.NoError(t, err)
			assert.Equal(t, Block, d.Outcome)
			assert.Contains(t, d.Codes(), tc.code)
			assert.Nil(t, next)
		})
	}
}

func assertSameDecision(t *testing.T, want, got *Decision) {
	t.Helper()
	w, g := *want, *got
	w.DecisionID, g.DecisionID = "", ""
	w.Recorded, g.Recorded = false, false
	assertSameJSON(t, &w, &g, "Decide gives the decision Submit records")
}

func assertSameJSON(t *testing.T, want, got any, msg string) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(w), string(g), msg)
}

// Validate lists a request's contract errors without asking the policy.
func TestValidateListsContractErrors(t *testing.T) {
	dc := openToy(t, toyAllow).Decider()
	_, st, err := dc.Decide(context.Background(), Input{Request: []byte(toyStart), Now: time.Now()})
	require.NoError(t, err)
	errs, err := dc.Validate([]byte(toyHandoff("r-1", 1, "")), st)
	require.NoError(t, err)
	assert.Empty(t, errs)
	errs, err = dc.Validate([]byte(toyHandoff("r-1", 1, `,"surprise":1`)), st)
	require.NoError(t, err)
	require.NotEmpty(t, errs)
	assert.Equal(t, "surprise", errs[0].Path)
	errs, err = dc.Validate([]byte(`{"kind":`), nil)
	require.NoError(t, err)
	require.NotEmpty(t, errs, "an undecodable request is not valid")
}
