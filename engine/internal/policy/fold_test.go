package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// committedTables gives no table of its own: the policies read the JSON copies of the
// contract tables committed in the policy tree, which CheckTables keeps equal to the
// CUE values.
type committedTables []string

func (committedTables) CoreDocuments() (map[string]any, error)       { return nil, nil }
func (committedTables) PackDocuments(string) (map[string]any, error) { return nil, nil }
func (t committedTables) PackNames() []string                        { return t }

var shippedPacks = committedTables{"assessment", "campaign", "support", "video"}

// foldInput is one policy input as the engine builds it, recorded from the shipped
// scenarios.
type foldInput struct {
	Entrypoint string         `json:"entrypoint"`
	Input      map[string]any `json:"input"`
}

// TestFoldedQueriesDecideAsUnfolded evaluates every pack's folded and unfolded queries
// on inputs recorded from the shipped scenarios and on variants of them (another kind,
// status, actor, a validation error, no request, no state), and requires the same
// result or the same error for each, with compilation at once and a pack at a time.
func TestFoldedQueriesDecideAsUnfolded(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile("testdata/fold_inputs.json")
	require.NoError(t, err)
	var recorded []foldInput
	require.NoError(t, json.Unmarshal(b, &recorded))
	for _, lazy := range []bool{false, true} {
		t.Run(fmt.Sprintf("lazy=%v", lazy), func(t *testing.T) {
			cp, err := Compile(ctx, os.DirFS("../../../policies"), shippedPacks, lazy, true)
			require.NoError(t, err)
			if lazy {
				_, err := cp.Folded(ctx, PackEntrypoint("video"))
				require.Error(t, err, "lazy compilation does not fold")
				// Fold anyway, to check the queries of groups compiled a pack at a time.
				cp, err = Compile(ctx, os.DirFS("../../../policies"), shippedPacks, lazy, true)
				require.NoError(t, err)
				cp.fold = true
			}
			inputs := recorded
			if !lazy {
				inputs = foldVariants(t, cp, recorded)
			}
			t.Logf("%d inputs", len(inputs))
			perPack := map[string]int{}
			for _, in := range inputs {
				perPack[in.Entrypoint]++
			}
			for _, pack := range shippedPacks {
				ep := PackEntrypoint(pack)
				n, err := cp.Folded(ctx, ep)
				require.NoError(t, err, pack)
				assert.Positive(t, n, pack)
				assert.GreaterOrEqual(t, perPack[ep], 5, pack)
			}
			_, err = cp.Folded(ctx, CoreEntrypoint)
			assert.Error(t, err, "the core entrypoint is evaluated with no pack: it is not folded")
			for i, in := range inputs {
				folded, err := cp.Query(ctx, in.Entrypoint)
				require.NoError(t, err)
				unfolded, err := cp.UnfoldedQuery(ctx, in.Entrypoint)
				require.NoError(t, err)
				v, err := ast.InterfaceToValue(in.Input)
				require.NoError(t, err)
				got, gotErr := folded.Eval(ctx, rego.EvalParsedInput(v))
				want, wantErr := unfolded.Eval(ctx, rego.EvalParsedInput(v))
				require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "input %d (%s)", i, in.Entrypoint)
				if !reflect.DeepEqual(want, got) {
					w, _ := json.Marshal(want)
					g, _ := json.Marshal(got)
					t.Fatalf("input %d (%s): folded %s, unfolded %s", i, in.Entrypoint, g, w)
				}
			}
		})
	}
}

// foldVariants returns the recorded inputs and, for each, variants that take other
// branches of the policies: each request kind, each status seen in the pack's inputs,
// each agent of the pack's registry as the actor, a validation error, no request and
// no state.
func foldVariants(t *testing.T, cp *Policies, recorded []foldInput) []foldInput {
	statuses := map[string]map[string]bool{}
	for _, in := range recorded {
		if st, ok := in.Input["state"].(map[string]any); ok {
			if s, ok := st["status"].(string); ok {
				if statuses[in.Entrypoint] == nil {
					statuses[in.Entrypoint] = map[string]bool{}
				}
				statuses[in.Entrypoint][s] = true
			}
		}
	}
	kinds := []string{"start", "handoff", "review", "approval", "failure", "outcome", "cancel", "resolution"}
	var out []foldInput
	for _, in := range recorded {
		pack, _ := in.Input["pack"].(string)
		out = append(out, in)
		vary := func(f func(input map[string]any)) {
			b, err := json.Marshal(in.Input)
			require.NoError(t, err)
			var c map[string]any
			require.NoError(t, json.Unmarshal(b, &c))
			f(c)
			out = append(out, foldInput{Entrypoint: in.Entrypoint, Input: c})
		}
		vary(func(c map[string]any) {
			c["validation"] = map[string]any{"errors": []any{map[string]any{"code": "SCHEMA_INVALID", "path": "kind", "message": "invalid"}}}
		})
		vary(func(c map[string]any) { c["request"] = nil })
		vary(func(c map[string]any) { c["state"] = nil })
		req, ok := in.Input["request"].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range kinds {
			if k != req["kind"] {
				vary(func(c map[string]any) { c["request"].(map[string]any)["kind"] = k })
			}
		}
		if _, ok := in.Input["state"].(map[string]any); ok {
			for _, s := range sortedKeys(statuses[in.Entrypoint]) {
				vary(func(c map[string]any) { c["state"].(map[string]any)["status"] = s })
			}
		}
		for _, a := range packAgents(t, cp, pack) {
			vary(func(c map[string]any) {
				c["request"].(map[string]any)["actor"] = map[string]any{"type": "agent", "id": a}
			})
		}
		vary(func(c map[string]any) {
			c["request"].(map[string]any)["actor"] = map[string]any{"type": "human", "id": "reviewer", "roles": []any{"approver"}}
		})
	}
	return out
}

// packAgents are the agent ids of a pack's registry.
func packAgents(t *testing.T, cp *Policies, pack string) []string {
	handoff, _ := cp.data["handoff"].(map[string]any)
	p, _ := handoff[pack].(map[string]any)
	c, _ := p["contract"].(map[string]any)
	agents, _ := c["agents"].(map[string]any)
	require.NotEmpty(t, agents, pack)
	out := make([]string, 0, len(agents))
	for a := range agents {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// foldPolicies compiles a one-pack bundle p (no contract tables of its own beyond
// data.json) and returns which documents its query folds and the policies.
func foldPolicies(t *testing.T, files map[string]string) (*Policies, []string, error) {
	ctx := context.Background()
	fsys := fstest.MapFS{
		"handoff/p/contract/data.json": {Data: []byte(`{"limit": 3, "kinds": ["a", "b"]}`)},
		"handoff/core/core.rego":       {Data: []byte("package handoff.core\n\ndecision := {\"outcome\": \"BLOCK\"}\n")},
	}
	for path, src := range files {
		fsys[path] = &fstest.MapFile{Data: []byte(src)}
	}
	cp, err := Compile(ctx, fsys, committedTables{"p"}, false, true)
	require.NoError(t, err)
	g, err := cp.group(ctx, PackEntrypoint("p"))
	require.NoError(t, err)
	compiler, store, err := g.compileModules(cp)
	require.NoError(t, err)
	f := &folder{compiler: compiler, store: store, pack: "p", keep: func(string) bool { return true }}
	folded, _, err := f.fold(ctx, g.modules, PackEntrypoint("p"))
	var names []string
	for _, m := range folded {
		if moduleOwner(m) != "p" {
			continue
		}
		for _, r := range m.Rules {
			body, ok := r.Body[0].Terms.(*ast.Term)
			if ok && len(r.Body) == 1 && body.Equal(ast.BooleanTerm(true)) && r.Head.Value != nil && ast.IsConstant(r.Head.Value.Value) {
				names = append(names, r.Head.Ref().String())
			}
		}
	}
	slices.Sort(names)
	return cp, names, err
}

func TestFoldReplacesOnlyConstantDocuments(t *testing.T) {
	_, folded, err := foldPolicies(t, map[string]string{"handoff/p/p.rego": `package handoff.p

tables := data.handoff[input.pack].contract

limit := tables.limit

kinds contains k if some k in tables.kinds

doubled[k] := n if {
	some k in kinds
	n := limit * 2
}

defaulted := x if {
	x := tables.missing
} else := "none"

from_input := input.request.kind

traced if trace("read")

# METADATA
# title: Titled
titled := rego.metadata.rule().title

never if tables.missing

slow := count([x | some x in numbers.range(1, 100000000)])

twice(x) := x * limit

decision := {
	"limit": limit, "kinds": kinds, "doubled": doubled, "defaulted": defaulted,
	"from_input": from_input, "traced": traced, "titled": titled,
	"never": never, "slow": slow, "twice": twice(object.get(input, "n", 1)),
}
`})
	require.NoError(t, err)
	// tables is read only by documents folded themselves; never is undefined; slow
	// takes longer than foldBudget; the others read input, call trace or rego.metadata,
	// or are functions.
	assert.Equal(t, []string{"defaulted", "doubled", "kinds", "limit"}, folded)
}

func TestFoldRefusesWith(t *testing.T) {
	cp, _, err := foldPolicies(t, map[string]string{"handoff/p/p.rego": `package handoff.p

limit := data.handoff.p.contract.limit

overridden := x if {
	x := limit with data.handoff.p.contract.limit as 4
}

decision := {"limit": limit, "overridden": overridden, "kind": input.request.kind}
`})
	require.ErrorContains(t, err, "uses with")
	_, err = cp.Folded(context.Background(), PackEntrypoint("p"))
	require.ErrorContains(t, err, "uses with")
}

// The folded query reads input.pack as the pack's name, as the engine always sets it:
// a query given no input.pack shows it.
func TestFoldReadsInputPackAsThePack(t *testing.T) {
	ctx := context.Background()
	cp, folded, err := foldPolicies(t, map[string]string{"handoff/p/p.rego": `package handoff.p

limit := data.handoff.p.contract.limit

decision := {"limit": limit, "echo": sprintf("%s/%s", [input.pack, input.request.kind])}
`})
	require.NoError(t, err)
	assert.Equal(t, []string{"limit"}, folded)
	in := ast.MustParseTerm(`{"request": {"kind": "k"}}`).Value
	q, err := cp.Query(ctx, PackEntrypoint("p"))
	require.NoError(t, err)
	rs, err := q.Eval(ctx, rego.EvalParsedInput(in))
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Equal(t, map[string]any{"limit": json.Number("3"), "echo": "p/k"}, rs[0].Expressions[0].Value)
	q, err = cp.UnfoldedQuery(ctx, PackEntrypoint("p"))
	require.NoError(t, err)
	rs, err = q.Eval(ctx, rego.EvalParsedInput(in))
	require.NoError(t, err)
	assert.Empty(t, rs)
}
