package engine

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// A toy policy that calls a helper of a shared module, outside the handoff packages.
const (
	toyWithHelper = `package handoff.toy

import data.lib.status

decision := {"outcome": "allow", "status_after": status.open}
`
	sharedHelper = `package lib.status

open := "OPEN"
`
)

func TestLazyPoliciesDecideAsEager(t *testing.T) {
	for _, rego := range []string{toyAllow, toyWithHelper} {
		b := toyBundle(t, rego)
		b.Policies.(fstest.MapFS)["lib/status.rego"] = &fstest.MapFile{Data: []byte(sharedHelper)}
		var got []*Decision
		for _, lazy := range []bool{false, true} {
			e, err := Open(context.Background(), Options{InMemory: true, Bundle: &b, LazyPolicies: lazy})
			require.NoError(t, err)
			d := submit(t, e, toyStart)
			require.NoError(t, e.Close())
			got = append(got, d)
		}
		assert.Equal(t, Allow, got[0].Outcome, "%+v", got[0].Reasons)
		assert.Equal(t, got[0].Outcome, got[1].Outcome)
		assert.Equal(t, got[0].Codes(), got[1].Codes())
		assert.Equal(t, got[0].StatusAfter, got[1].StatusAfter)
		assert.Equal(t, got[0].Policy, got[1].Policy)
	}
}

func TestLazyPoliciesFailTheDecisionThatNeedsThem(t *testing.T) {
	b := toyBundle(t, "package handoff.toy\n\ndecision := {\"outcome\": \"allow\", \"status_after\": \"OPEN\", \"x\": no_such_function(1)}\n")
	_, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
	require.Error(t, err, "compiled at Open, the pack's error stops Open")

	e, err := Open(context.Background(), Options{InMemory: true, Bundle: &b, LazyPolicies: true})
	require.NoError(t, err, "compiled lazily, nothing is compiled yet")
	defer e.Close()
	for range 2 { // the compile error is kept, not retried into an allow
		d := submit(t, e, toyStart)
		assert.Equal(t, Block, d.Outcome)
		assert.Equal(t, []string{pipeline.CodePolicyError}, d.Codes(), "%+v", d.Reasons)
	}
	_, err = e.State(context.Background(), "t1", "wf-1")
	assert.ErrorIs(t, err, store.ErrNotFound, "a failed start creates no workflow")
}

// Lazily, a pack's contracts are compiled with its first request: a pack whose CUE does
// not compile stops Open when compiled at once, and otherwise fails only its own
// requests, with an error (no decision could be made), every time.
func TestLazyContractsFailOnlyTheirPack(t *testing.T) {
	b := toyBundle(t, toyAllow)
	b.Contracts.(fstest.MapFS)["broken/broken.cue"] = &fstest.MapFile{Data: []byte("package broken\n\npack: name: 1 & 2\n")}
	_, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
	require.Error(t, err, "compiled at Open, the pack's error stops Open")
	assert.Contains(t, err.Error(), "broken")

	e, err := Open(context.Background(), Options{InMemory: true, Bundle: &b, LazyPolicies: true})
	require.NoError(t, err, "compiled lazily, only core is compiled at Open")
	defer e.Close()
	assert.Equal(t, Allow, submit(t, e, toyStart).Outcome, "the toy pack compiles on its own")
	broken := strings.NewReplacer(`"pack":"toy"`, `"pack":"broken"`, `"r-start"`, `"r-broken"`, `"wf-1"`, `"wf-2"`).Replace(toyStart)
	require.Contains(t, broken, `"pack":"broken"`)
	for range 2 {
		d, err := e.Submit(context.Background(), []byte(broken))
		require.Error(t, err, "got %+v", d)
		assert.Contains(t, err.Error(), "broken")
	}
	var names []string
	for _, p := range e.Decider().Packs() {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"toy"}, names, "Packs leaves out a pack that does not compile")
}

// Lazily, a pack's files are parsed and compiled only with that pack: a file under
// handoff/toy/ that declares another package is refused, not compiled into every pack.
func TestLazyPoliciesKeepPackagesInTheirDirectories(t *testing.T) {
	b := toyBundle(t, toyAllow)
	b.Policies.(fstest.MapFS)["handoff/toy/stray.rego"] = &fstest.MapFile{Data: []byte("package handoff.core\n\nstray := true\n")}
	e, err := Open(context.Background(), Options{InMemory: true, Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	d := submit(t, e, toyStart)
	assert.Equal(t, Block, d.Outcome)
	require.Equal(t, []string{pipeline.CodePolicyError}, d.Codes())
	assert.Contains(t, d.Reasons[0].Message, "outside its directory")
}
