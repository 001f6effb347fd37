package engine

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/util"
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
	cc, err := compileContracts(b.Contracts, false)
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
	for _, name := range cc.names {
		p, err := cc.pack(name)
		if err != nil {
			return nil, err
		}
		if err := p.exportTables(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// exportTables adds the pack's table files to out.
func (p *packContract) exportTables(out map[string][]byte) error {
	b, err := tablesJSON(p.tables)
	if err != nil {
		return err
	}
	out[packTablesPath(p.name)] = b
	if p.config != nil {
		c, err := tablesJSON(p.config)
		if err != nil {
			return err
		}
		out[packConfigPath(p.name)] = c
	}
	return nil
}

// StaleTablesError says a committed table no longer matches its CUE source.
type StaleTablesError struct {
	Path string
}

func (e *StaleTablesError) Error() string {
	return fmt.Sprintf("engine: contract tables %s are stale: run `handoffctl tables --write` to export them from CUE", e.Path)
}

// CheckTables compares a bundle's committed tables with the CUE export: a
// *StaleTablesError names the first that differs or is missing. The engine itself reads
// the CUE values (Open puts them in the policies' data); the committed files are what
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

// coreDocuments are the core tables as the policies' data documents, by their path in
// the data tree (handoff/core/contract), with numbers as OPA reads them.
func (cc *compiledContracts) coreDocuments() (map[string]any, error) {
	b, err := tablesJSON(cc.guardrails)
	if err != nil {
		return nil, err
	}
	return tableDocuments(map[string][]byte{coreTablesPath: b})
}

// packDocuments are a pack's tables as data documents (handoff/<pack>/contract and
// handoff/<pack>/config), compiling the pack's contracts if they were not yet.
func (cc *compiledContracts) packDocuments(name string) (map[string]any, error) {
	p, err := cc.pack(name)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("engine: no pack %s", name)
	}
	files := map[string][]byte{}
	if err := p.exportTables(files); err != nil {
		return nil, err
	}
	return tableDocuments(files)
}

func tableDocuments(files map[string][]byte) (map[string]any, error) {
	docs := map[string]any{}
	for path, b := range files {
		var v any
		if err := util.UnmarshalJSON(b, &v); err != nil {
			return nil, fmt.Errorf("engine: table %s: %w", path, err)
		}
		docs[strings.TrimSuffix(path, "/data.json")] = v
	}
	return docs, nil
}
