package handoff_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/handoff-dev/handoff"
)

var update = flag.Bool("update", false, "rewrite testdata/wire from the current types")

// wireValues are representative values of every wire type: each one empty, each one with
// every field set, and the cases that hinge on a pointer (a zero delta, a cleared task
// dependency list).
func wireValues() map[string]any {
	zero, empty := 0, []string{}
	values := map[string]any{
		"event_counter_delta_zero": handoff.Event{Type: "counter", Name: "qa_cycles", Delta: &zero},
		"event_counter_value_zero": handoff.Event{Type: "counter", Name: "qa_cycles", Value: &zero},
		"event_task_cleared":       handoff.Event{Type: "task", ID: "t1", Status: "ready", DependsOn: &empty},
		"decision_empty_lists": handoff.Decision{Reasons: []handoff.Reason{}, Next: []handoff.Next{},
			Revise: []handoff.Revision{}, Events: []handoff.Event{}},
	}
	for _, v := range []any{
		handoff.Decision{}, handoff.Reason{}, handoff.Next{}, handoff.NextContext{}, handoff.TextHit{},
		handoff.RetryPlan{}, handoff.Revision{}, handoff.PolicyRef{}, handoff.Event{},
		handoff.ArtifactRef{}, handoff.Defect{}, handoff.State{}, handoff.Task{},
		handoff.ArtifactHistory{}, handoff.ArtifactVersion{}, handoff.Conflict{},
		handoff.ApprovalRecord{}, handoff.DefectRecord{},
	} {
		t := reflect.TypeOf(v)
		values[t.Name()+"_zero"] = v
		full := reflect.New(t).Elem()
		fill(full, new(int))
		values[t.Name()+"_full"] = full.Interface()
	}
	return values
}

// fill sets every exported field of v, recursively, to a value distinct from its zero.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("any%d", *n)))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), n)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, n)
		m.SetMapIndex(reflect.ValueOf(fmt.Sprintf("k%d", *n)), e)
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	default:
		panic("fill: unexpected kind " + v.Kind().String())
	}
}

// TestWireBytes pins the JSON of the wire types: recorded decisions and states are
// hashed and replayed byte for byte, so a change of field order, tag or omitempty in
// the generated types must show here. The files were written by the hand-written types
// the generated ones replaced; each also decodes and encodes back to itself.
func TestWireBytes(t *testing.T) {
	for name, v := range wireValues() {
		t.Run(name, func(t *testing.T) {
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "wire", name+".json")
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want = bytes.TrimSuffix(want, []byte("\n"))
			if !bytes.Equal(got, want) {
				t.Fatalf("encoding changed:\n got %s\nwant %s", got, want)
			}
			back := reflect.New(reflect.TypeOf(v))
			if err := json.Unmarshal(want, back.Interface()); err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(back.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, want) {
				t.Fatalf("round trip changed:\n got %s\nwant %s", again, want)
			}
		})
	}
}
