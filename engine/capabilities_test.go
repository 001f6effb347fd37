package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyErrorsSayWhatToUseInstead(t *testing.T) {
	loc := &ast.Location{File: "handoff/toy/toy.rego", Row: 3}
	errs := ast.Errors{
		ast.NewError(ast.TypeErr, loc, "undefined function time.now_ns"),
		ast.NewError(ast.TypeErr, loc, "undefined function rand.intn"),
		ast.NewError(ast.TypeErr, loc, "undefined function my.helper"),
	}
	out := PolicyErrors(errs, "policies")
	require.Len(t, out, 3)
	assert.Equal(t, "policies/handoff/toy/toy.rego", out[0].Location.File)
	assert.Equal(t, "handoff/toy/toy.rego", errs[0].Location.File, "the input is not changed")
	assert.Contains(t, out[0].Message, "removes it on purpose")
	assert.Contains(t, out[0].Message, "input.now")
	assert.Contains(t, out[1].Message, "ids and random choices come in the request")
	assert.Equal(t, "undefined function my.helper", out[2].Message, "a function that never existed is only undefined")
}

func TestRemovedBuiltinErrorsNameTheBundleFile(t *testing.T) {
	for call, instead := range map[string]string{
		`time.now_ns()`: "use input.now",
		`http.send({"method": "get", "url": "http://x"})`: "the host fetches what a decision needs",
		`uuid.rfc4122("x")`: "ids come in the request",
	} {
		t.Run(call, func(t *testing.T) {
			b := toyBundle(t, "package handoff.toy\n\ndecision := {\"outcome\": \"allow\", \"status_after\": \"OPEN\", \"x\": "+call+"}\n")
			_, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "policies/handoff/toy/")
			assert.Contains(t, err.Error(), "removes it on purpose")
			assert.Contains(t, err.Error(), instead)
		})
	}
}

func TestContractErrorsNameTheBundleFile(t *testing.T) {
	b := toyBundle(t, toyAllow)
	cfs := b.Contracts.(fstest.MapFS)
	cfs["toy/broken.cue"] = &fstest.MapFile{Data: []byte("package toy\n\nx: 1 & 2\n")}
	_, err := Open(context.Background(), Options{InMemory: true, Bundle: &b})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "engine: compile contracts/toy: x: conflicting values 2 and 1:\n    contracts/toy/broken.cue:3:")
	var ce *ContractError
	require.True(t, errors.As(err, &ce), "got %T", err)
	require.Len(t, ce.Errs, 1)
	assert.Equal(t, "contracts/toy/broken.cue:3: x: conflicting values 2 and 1", ce.Errs[0].Error())

	delete(cfs, "toy/broken.cue")
	src := strings.Replace(toyContract, `{from: "OPEN", to: "DONE"}`, `{from: "NEW", to: "DONE"}`, 1)
	cfs["toy/toy.cue"] = &fstest.MapFile{Data: []byte(src)}
	_, err = Open(context.Background(), Options{InMemory: true, Bundle: &b})
	var pe *PositionError
	require.True(t, errors.As(err, &pe), "got %v", err)
	assert.Equal(t, "contracts/toy/toy.cue", pe.File)
	assert.Positive(t, pe.Line)
	assert.Contains(t, pe.Error(), "status OPEN is not terminal and has no exit")
}
