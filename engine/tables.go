package engine

import (
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/util"

	"github.com/handoff-dev/handoff/engine/bundle"
	"github.com/handoff-dev/handoff/engine/internal/contract"
)

// ExportTables compiles a bundle's contracts and returns every table file by its path in
// the policy tree, in the committed form (see bundle.ExportTables).
func ExportTables(b Bundle) (map[string][]byte, error) { return bundle.ExportTables(b) }

// StaleTablesError says a committed table no longer matches its CUE source.
type StaleTablesError = bundle.StaleTablesError

// CheckTables compares a bundle's committed tables with the CUE export: a
// *StaleTablesError names the first that differs or is missing. Open reads the CUE
// values; the committed files are what stock `opa test` reads.
func CheckTables(b Bundle) error { return bundle.CheckTables(b) }

// contractTables gives the policies the data documents of a bundle's contracts.
type contractTables struct{ cc *contract.Contracts }

// CoreDocuments are the core tables as the policies' data documents, by their path in
// the data tree (handoff/core/contract), with numbers as OPA reads them.
func (t contractTables) CoreDocuments() (map[string]any, error) {
	b, err := contract.TablesJSON(t.cc.Guardrails)
	if err != nil {
		return nil, err
	}
	return tableDocuments(map[string][]byte{contract.CoreTablesPath: b})
}

// PackDocuments are a pack's tables as data documents (handoff/<pack>/contract and
// handoff/<pack>/config), compiling the pack's contracts if they were not yet.
func (t contractTables) PackDocuments(name string) (map[string]any, error) {
	p, err := t.cc.Pack(name)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("engine: no pack %s", name)
	}
	files := map[string][]byte{}
	if err := p.ExportTables(files); err != nil {
		return nil, err
	}
	return tableDocuments(files)
}

func (t contractTables) PackNames() []string { return t.cc.PackNames() }

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
