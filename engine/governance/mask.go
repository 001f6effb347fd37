package governance

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/scan"
)

// mask removes the pack's sensitive fields from the input and result and returns the
// JSON pointers removed, sorted. A field is removed where the request holds it and, for
// output content, from the artifact versions in the state and the events of the result.
// A policy may also pass a sensitive value on, in the context of the next step or in
// some other part of the result or state: every string removed (of 4 characters or more)
// is therefore removed wherever else it appears in the state and the result.
func mask(cc *contract.Contracts, pack string, input map[string]any, result any) []string {
	var erased []string
	values := map[string]bool{}
	erase := func(v any, path []string, at []string) {
		for _, hit := range eraseAt(v, path, at) {
			erased = append(erased, pointer(hit.at))
			collectStrings(hit.value, values)
		}
	}
	for _, f := range sensitiveFields(cc, pack) {
		path := strings.Split(f, ".")
		erase(input["request"], path, []string{"input", "request"})
		rest, ok := strings.CutPrefix(f, "output.content.")
		if !ok {
			continue
		}
		sub := strings.Split(rest, ".")
		// Recorded versions of the artifact in the state.
		if st, ok := input["state"].(map[string]any); ok {
			arts, _ := st["artifacts"].(map[string]any)
			for _, typ := range scan.SortedKeys(arts) {
				versions, _ := arts[typ].(map[string]any)["versions"].(map[string]any)
				for _, n := range scan.SortedKeys(versions) {
					v, _ := versions[n].(map[string]any)
					erase(v["content"], sub, []string{"input", "state", "artifacts", typ, "versions", n, "content"})
				}
			}
		}
		// Events of the decision that record content.
		if res, ok := result.(map[string]any); ok {
			events, _ := res["events"].([]any)
			for i, ev := range events {
				if m, ok := ev.(map[string]any); ok {
					erase(m["content"], sub, []string{"result", "events", strconv.Itoa(i), "content"})
				}
			}
		}
	}
	for s := range values {
		if utf8.RuneCountInString(s) < minMaskedValue {
			delete(values, s)
		}
	}
	if len(values) > 0 {
		erased = append(erased, eraseValues(input["state"], values, []string{"input", "state"})...)
		erased = append(erased, eraseValues(result, values, []string{"result"})...)
	}
	sort.Strings(erased)
	return erased
}

// minMaskedValue is the length from which a sensitive string is removed wherever it
// appears: shorter ones ("en", "ok") would take unrelated values with them.
const minMaskedValue = 4

// erasure is one value removed and where it was.
type erasure struct {
	at    []string
	value any
}

// eraseAt deletes the values at path under v and returns them. A segment name[*] stands
// for every element of the list name (output.content.items[*].note).
func eraseAt(v any, path []string, at []string) []erasure {
	m, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return nil
	}
	name, each := strings.CutSuffix(path[0], "[*]")
	child, found := m[name]
	if !found {
		return nil
	}
	at = append(slices.Clip(at), name)
	if len(path) == 1 { // name[*] last: the whole list goes
		delete(m, name)
		return []erasure{{at: at, value: child}}
	}
	if !each {
		return eraseAt(child, path[1:], at)
	}
	list, _ := child.([]any)
	var out []erasure
	for i, el := range list {
		out = append(out, eraseAt(el, path[1:], append(slices.Clip(at), strconv.Itoa(i)))...)
	}
	return out
}

// collectStrings adds every string under v to set.
func collectStrings(v any, set map[string]bool) {
	switch v := v.(type) {
	case string:
		set[v] = true
	case map[string]any:
		for _, x := range v {
			collectStrings(x, set)
		}
	case []any:
		for _, x := range v {
			collectStrings(x, set)
		}
	}
}

// eraseValues deletes, under v, every object member whose value is one of the strings and
// returns where they were. A list element is replaced by null rather than removed, so
// that the positions of the others hold.
func eraseValues(v any, values map[string]bool, at []string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for _, k := range scan.SortedKeys(v) {
			if s, ok := v[k].(string); ok && values[s] {
				delete(v, k)
				out = append(out, pointer(append(slices.Clip(at), k)))
				continue
			}
			out = append(out, eraseValues(v[k], values, append(slices.Clip(at), k))...)
		}
	case []any:
		for i, x := range v {
			if s, ok := x.(string); ok && values[s] {
				v[i] = nil
				out = append(out, pointer(append(slices.Clip(at), strconv.Itoa(i))))
				continue
			}
			out = append(out, eraseValues(x, values, append(slices.Clip(at), strconv.Itoa(i)))...)
		}
	}
	return out
}

// sensitiveFields reads a pack's sensitive_fields table. A decision of no known pack (a
// request blocked before routing) is masked with the fields of every pack.
func sensitiveFields(cc *contract.Contracts, pack string) []string {
	var packs []*contract.Pack
	if p, _ := cc.Pack(pack); p != nil {
		packs = append(packs, p)
	} else {
		// A pack that does not compile has no tables to read.
		for _, n := range cc.PackNames() {
			if p, _ := cc.Pack(n); p != nil {
				packs = append(packs, p)
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range packs {
		list, _ := p.Tables["sensitive_fields"].([]any)
		for _, x := range list {
			if s, ok := x.(string); ok && s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// pointer writes an RFC 6901 JSON pointer.
func pointer(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
