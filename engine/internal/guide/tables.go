package guide

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// packTables is what the steps and the templates read of a pack's tables, in the contract's shapes.
type packTables struct {
	Agents map[string]struct {
		Name     string   `json:"name"`
		Tasks    []string `json:"tasks"`
		Produces []string `json:"produces"`
		Consumes []string `json:"consumes"`
		HandsTo  []string `json:"hands_to"`
		Reviews  []string `json:"reviews"`
	} `json:"agents"`
	Roles map[string]struct {
		Name              string   `json:"name"`
		Approves          []string `json:"approves"`
		ResolvesConflicts bool     `json:"resolves_conflicts"`
	} `json:"roles"`
	Artifacts map[string]struct {
		Producer         string `json:"producer"`
		RequiresApproval bool   `json:"requires_approval"`
	} `json:"artifacts"`
	Workflow struct {
		Terminal    []string `json:"terminal"`
		Transitions []struct {
			From string `json:"from"`
			To   string `json:"to"`
			On   string `json:"on"`
		} `json:"transitions"`
		Actors map[string][]struct {
			Agent string `json:"agent"`
			Task  string `json:"task"`
		} `json:"actors"`
	} `json:"workflow"`
	Context map[string]struct {
		From string `json:"from"`
	} `json:"context"`
}

// edgeOutputs are the types source produces whose context packages go to target, in
// the order source produces them.
func (t *packTables) edgeOutputs(source, target string) []string {
	var outs []string
	types := t.edgeTypes(source + ">" + target)
	for _, typ := range t.Agents[source].Produces {
		if slices.Contains(types, typ) {
			outs = append(outs, typ)
		}
	}
	return outs
}

// edgeTypes are the artifact types the context packages of an edge "source>target" are
// taken from (a package key may name its type after the edge: "a>b/TYPE", "a>b:TYPE").
func (t *packTables) edgeTypes(edge string) []string {
	var out []string
	for _, k := range sortedNames(t.Context) {
		if k == edge || strings.HasPrefix(k, edge+"/") || strings.HasPrefix(k, edge+":") {
			out = append(out, t.Context[k].From)
		}
	}
	return out
}

// sortedNames are m's keys, sorted: the steps and the skeletons list what a table
// holds in one order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// decodeVia reads a table (a CUE export held as Go values) into v through JSON.
func decodeVia(table, v any) error {
	b, err := json.Marshal(table)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
