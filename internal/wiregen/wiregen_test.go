package wiregen_test

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/internal/wiregen"
)

const contracts = "../../contracts"

// TestGeneratedIsCurrent fails when wire_gen.go is not what the contracts generate.
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := wiregen.Generate(contracts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../wire_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("wire_gen.go is stale: run go generate at the module root")
	}
}

// TestHandWritten checks each hand-written Go type field by field against what its CUE
// definition derives: the same JSON labels, Go names and types, and omitempty exactly
// where the rules put it. Only the order of the fields is the Go type's own.
func TestHandWritten(t *testing.T) {
	goTypes := map[string]reflect.Type{"Decision": reflect.TypeFor[handoff.Decision](), "Error": reflect.TypeFor[handoff.Error]()}
	structs, err := wiregen.Derive(contracts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range structs {
		if s.HandWritten == "" {
			continue
		}
		t.Run(s.GoName, func(t *testing.T) {
			typ, ok := goTypes[s.GoName]
			if !ok {
				t.Fatalf("no Go type to check %s against", s.CUE)
			}
			fields := map[string]reflect.StructField{}
			for _, f := range reflect.VisibleFields(typ) {
				if f.IsExported() && f.Tag.Get("json") != "-" { // not on the wire
					fields[strings.Split(f.Tag.Get("json"), ",")[0]] = f
				}
			}
			for _, want := range s.Fields {
				got, ok := fields[want.Label]
				if !ok {
					t.Errorf("%s.%s: no Go field", s.CUE, want.Label)
					continue
				}
				delete(fields, want.Label)
				goType := strings.ReplaceAll(got.Type.String(), "handoff.", "")
				if got.Name != want.GoName || goType != want.GoType || string(got.Tag) != want.Tag() {
					t.Errorf("%s.%s: Go has %s %s `%s`, CUE derives %s %s `%s`", s.CUE, want.Label,
						got.Name, goType, got.Tag, want.GoName, want.GoType, want.Tag())
				}
			}
			for label := range fields {
				t.Errorf("%s has %s, which %s does not", s.GoName, label, s.CUE)
			}
		})
	}
}

// TestOutcomes checks the hand-written Outcome constants against #DecisionOutcome.
func TestOutcomes(t *testing.T) {
	core, err := wiregen.LoadCore(contracts)
	if err != nil {
		t.Fatal(err)
	}
	_, values := core.LookupPath(cue.ParsePath("#DecisionOutcome")).Expr()
	var cueOutcomes []string
	for _, v := range values {
		s, err := v.String()
		if err != nil {
			t.Fatal(err)
		}
		cueOutcomes = append(cueOutcomes, s)
	}
	goOutcomes := []string{}
	for _, o := range []handoff.Outcome{handoff.Allow, handoff.AwaitHuman, handoff.Retry,
		handoff.Revise, handoff.Block, handoff.Fail} {
		goOutcomes = append(goOutcomes, string(o))
	}
	if !slices.Equal(goOutcomes, cueOutcomes) {
		t.Fatalf("Outcome constants %v, #DecisionOutcome %v", goOutcomes, cueOutcomes)
	}
}
