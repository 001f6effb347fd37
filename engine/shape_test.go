package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"cuelang.org/go/cue"
	"github.com/stretchr/testify/require"
)

// TestResultChecksAgreeWithCUE is a differential test: the policy result check that
// picks each event's alternative by its type accepts exactly the results that unifying
// the whole #PolicyResult accepts, on a valid result with one event of every type and
// on every variant of it with one field removed, added, retyped or given another type.
func TestResultChecksAgreeWithCUE(t *testing.T) {
	e := openToy(t, toyAllow)
	ctx := e.contracts.ctx
	rs := newResultShapes(e.result, e.contracts.core.LookupPath(cue.ParsePath("#Event")))
	require.Len(t, rs.byType, 10, "every #Event alternative is discriminated by its type")

	ref := map[string]any{"id": "a-1", "type": "NOTE", "version": 1, "hash": "sha256:" + fmt.Sprintf("%064d", 0)}
	events := []map[string]any{
		{"type": "artifact_recorded", "ref": ref, "status": "draft", "producer": "writer", "based_on": []any{}, "assumptions": []any{}, "limitations": []any{}, "content": map[string]any{"text": "x"}, "meta": map[string]any{}},
		{"type": "artifact_status", "artifact": "NOTE", "version": 1, "status": "approved"},
		{"type": "handoff_accepted", "source": "writer", "target": "reader", "input_hash": ref["hash"], "stage": "OPEN"},
		{"type": "counter", "name": "n", "delta": 1},
		{"type": "counter", "name": "n", "value": 0},
		{"type": "conflict_opened", "id": "c-1", "conflict_type": "facts", "artifacts": []any{ref}, "raised_by": "writer"},
		{"type": "conflict_resolved", "id": "c-1", "by": "maria", "rationale": "r", "chosen": ref},
		{"type": "approval_recorded", "decision": "APPROVE", "by": "maria", "artifacts": []any{ref}, "stage": "OPEN"},
		{"type": "effect", "id": "e-1", "status": "pending"},
		{"type": "task", "id": "T1", "status": "done", "agent": "writer", "depends_on": []any{"T0"}},
	}
	result := func(evs ...any) map[string]any {
		return map[string]any{"outcome": "allow", "reasons": []any{}, "status_after": "OPEN", "next": []any{},
			"revise": []any{}, "events": evs}
	}
	var cases []any
	all := make([]any, len(events))
	for i, ev := range events {
		all[i] = ev
	}
	cases = append(cases, result(all...), result(), map[string]any{"outcome": "allow"}, result("not an event"), result(map[string]any{}))
	types := []any{"artifact_recorded", "counter", "task", "effect", "no_such_type", 7, nil}
	for i, ev := range events {
		keys := make([]string, 0, len(ev))
		for k := range ev {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		variant := func(change func(m map[string]any)) {
			m := map[string]any{}
			for k, v := range ev {
				m[k] = v
			}
			change(m)
			evs := append([]any(nil), all...)
			evs[i] = m
			cases = append(cases, result(evs...), result(m))
		}
		for _, k := range keys {
			variant(func(m map[string]any) { delete(m, k) })
			variant(func(m map[string]any) { m[k] = 12.5 })
			variant(func(m map[string]any) { m[k] = "" })
		}
		variant(func(m map[string]any) { m["extra"] = true })
		variant(func(m map[string]any) { m["delta"], m["value"] = 1, 2 })
		for _, typ := range types {
			variant(func(m map[string]any) { m["type"] = typ })
		}
	}
	accepted := 0
	for i, c := range cases {
		b, err := json.Marshal(c)
		require.NoError(t, err)
		v, err := decodeJSON(b)
		require.NoError(t, err)
		whole := validateAgainst(ctx, e.result, v)
		split := rs.check(ctx, v)
		require.Equal(t, len(whole) == 0, len(split) == 0, "case %d: %s\nwhole CUE: %v\nby type: %v", i, b, whole, split)
		if len(whole) == 0 {
			accepted++
		}
	}
	require.Greater(t, accepted, 10, "the cases include valid results")
	require.Greater(t, len(cases)-accepted, 100, "the cases include invalid results")
}
