package engine

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
)

// Tables are the contract tables Rego reads as data, exported from CUE: CUE is their
// single source of truth and the JSON files under policies/ are committed so plain
// `opa test` works.

// coreTablesPath and packTablesPath are where the exported tables live in a policy tree.
const coreTablesPath = "handoff/core/contract/data.json"

func packTablesPath(pack string) string { return "handoff/" + pack + "/contract/data.json" }

// packConfigPath is where a pack's optional config value (tables that do not fit the
// #Pack schema: task graphs, routes, budgets) is exported, read as data.handoff.<pack>.config.
func packConfigPath(pack string) string { return "handoff/" + pack + "/config/data.json" }

// ExportTables compiles a bundle's contracts and returns every table file by its path in
// the policy tree, in the committed form.
func ExportTables(b Bundle) (map[string][]byte, error) {
	cc, err := compileContracts(b.Contracts)
	if err != nil {
		return nil, err
	}
	return cc.exportTables()
}

func (cc *compiledContracts) exportTables() (map[string][]byte, error) {
	out := map[string][]byte{}
	core, err := tablesJSON(cc.guardrails)
	if err != nil {
		return nil, err
	}
	out[coreTablesPath] = core
	for name, p := range cc.packs {
		b, err := tablesJSON(p.tables)
		if err != nil {
			return nil, err
		}
		out[packTablesPath(name)] = b
		if p.config != nil {
			c, err := tablesJSON(p.config)
			if err != nil {
				return nil, err
			}
			out[packConfigPath(name)] = c
		}
	}
	return out, nil
}

// StaleTablesError says a committed table no longer matches its CUE source.
type StaleTablesError struct {
	Path string
}

func (e *StaleTablesError) Error() string {
	return fmt.Sprintf("engine: contract tables %s are stale: run `handoffctl tables --write` to export them from CUE", e.Path)
}

// checkTables refuses a bundle whose committed tables differ from the CUE export.
func checkTables(b Bundle, cc *compiledContracts) error {
	want, err := cc.exportTables()
	if err != nil {
		return err
	}
	for path, w := range want {
		got, err := fs.ReadFile(b.Policies, path)
		if err != nil {
			return &StaleTablesError{Path: path}
		}
		var gv, wv any
		if json.Unmarshal(got, &gv) != nil || json.Unmarshal(w, &wv) != nil || !reflect.DeepEqual(gv, wv) {
			return &StaleTablesError{Path: path}
		}
	}
	return nil
}
