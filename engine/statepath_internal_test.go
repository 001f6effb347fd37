package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// CheckDirectInput checks, on a request about to be decided at at, that the policy input
// and the decoded policy result are what the JSON round trips made of them: the state
// as policies read it, the validation errors, and the result decoded into a Decision.
// It reports whether the policy was asked (not a request decided before).
func (e *Engine) CheckDirectInput(t testing.TB, body []byte, at time.Time) bool {
	t.Helper()
	ctx := context.Background()
	in, prior, _, err := e.input(ctx, e.Decider(), body, at, nil)
	require.NoError(t, err)
	if prior != nil {
		return false
	}
	entrypoint, v, err := e.Decider().p.PolicyInput(in)
	require.NoError(t, err)
	obj := v.(ast.Object)
	if st := obj.Get(ast.StringTerm("state")); in.State != nil && st.Value.Compare(ast.Null{}) != 0 {
		requireSameValue(t, valueThroughJSON(t, in.State), st.Value)
	}
	errs, err := e.Decider().p.Validate(in)
	require.NoError(t, err)
	want, err := ast.InterfaceToValue(map[string]any{"errors": pipeline.ValidationValues(errs)})
	require.NoError(t, err)
	requireSameValue(t, want, obj.Get(ast.StringTerm("validation")).Value)

	q, err := e.Decider().policies.Query(ctx, entrypoint)
	require.NoError(t, err)
	rs, err := q.Eval(ctx, rego.EvalParsedInput(v))
	require.NoError(t, err)
	require.Len(t, rs, 1)
	raw := rs[0].Expressions[0].Value
	got, err := e.Decider().p.CheckResult(raw)
	require.NoError(t, err)
	wantD, err := decisionThroughJSON(raw)
	require.NoError(t, err)
	require.Equal(t, wantD, got)
	return true
}

// CheckDirectState checks a workflow's stored state: its value as policies read it and
// its copy are what the JSON round trips made of them, and the engine's cache holds
// it, equal to the stored snapshot decoded. It reports whether the workflow exists.
func (e *Engine) CheckDirectState(t testing.TB, tenant, workflow string) bool {
	t.Helper()
	snap, _, err := e.log.State(context.Background(), tenant, workflow)
	if errors.Is(err, store.ErrNotFound) {
		return false
	}
	require.NoError(t, err)
	st, err := pipeline.DecodeState(snap)
	require.NoError(t, err)
	want := valueThroughJSON(t, st)
	got, err := pipeline.StateValue(st)
	require.NoError(t, err)
	requireSameValue(t, want, got)

	c := pipeline.CloneState(st)
	require.Equal(t, st, c)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	require.True(t, bytes.Equal(snap, b), "the copy encodes as %s, the snapshot is %s", b, snap)

	cs := e.states.get(tenant, workflow, sha256.Sum256(snap))
	require.NotNil(t, cs, "the state of %s/%s is not cached", tenant, workflow)
	require.Equal(t, st, cs.state)
	requireSameValue(t, want, cs.value)
	return true
}

// valueThroughJSON is a state as policies read it, by its JSON encoding.
func valueThroughJSON(t testing.TB, st *State) ast.Value {
	t.Helper()
	x, err := pipeline.ToValue(st)
	require.NoError(t, err)
	v, err := ast.InterfaceToValue(x)
	require.NoError(t, err)
	return v
}

func requireSameValue(t testing.TB, want, got ast.Value) {
	t.Helper()
	require.Zero(t, want.Compare(got), "want %v\ngot  %v", want, got)
}

// decisionThroughJSON decodes a policy result by its JSON encoding, as CheckResult did.
func decisionThroughJSON(v any) (*Decision, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var d Decision
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	if d.Reasons == nil {
		d.Reasons = []Reason{}
	}
	if d.Next == nil {
		d.Next = []pipeline.Next{}
	}
	if d.Revise == nil {
		d.Revise = []pipeline.Revision{}
	}
	if d.Events == nil {
		d.Events = []pipeline.Event{}
	}
	return &d, nil
}
