package bundle

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"

	"github.com/handoff-dev/handoff/engine/internal/contract"
)

// Tables are the contract tables Rego reads as data, exported from CUE: CUE is their
// single source of truth and the JSON files under policies/ are committed so plain
// `opa test` works.

// ExportTables compiles a bundle's contracts and returns every table file by its path in
// the policy tree, in the committed form.
func ExportTables(b Bundle) (map[string][]byte, error) {
	cc, err := contract.Compile(b.Contracts, false)
	if err != nil {
		return nil, err
	}
	return cc.ExportTables()
}

// StaleTablesError says a committed table no longer matches its CUE source.
type StaleTablesError struct {
	Path string
}

// Error keeps the engine's prefix: hosts and handoffctl have always shown it so.
func (e *StaleTablesError) Error() string {
	return fmt.Sprintf("engine: contract tables %s are stale: run `handoffctl tables --write` to export them from CUE", e.Path)
}

// CheckTables compares a bundle's committed tables with the CUE export: a
// *StaleTablesError names the first that differs or is missing. The engine itself reads
// the CUE values (it puts them in the policies' data); the committed files are what
// stock `opa test` reads.
func CheckTables(b Bundle) error {
	want, err := ExportTables(b)
	if err != nil {
		return err
	}
	for _, path := range slices.Sorted(maps.Keys(want)) {
		got, err := fs.ReadFile(b.Policies, path)
		if err != nil {
			return &StaleTablesError{Path: path}
		}
		var gv, wv any
		if json.Unmarshal(got, &gv) != nil || json.Unmarshal(want[path], &wv) != nil || !reflect.DeepEqual(gv, wv) {
			return &StaleTablesError{Path: path}
		}
	}
	return nil
}
