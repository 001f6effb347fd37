package scan

import "github.com/handoff-dev/handoff"

// UntrustedKey wraps a value of a context package: what agents, tools and customers wrote
// reaches the next agent as data, inside a delimiter the host cannot mistake for its own
// instructions.
const UntrustedKey = "untrusted_data"

// InjectionFlags are the scan's injection hits among the derived values.
func InjectionFlags(derived map[string]any) []handoff.TextHit {
	hits, _ := derived["injection"].([]any)
	var out []handoff.TextHit
	for _, h := range hits {
		m, _ := h.(map[string]any)
		path, _ := m["path"].(string)
		pattern, _ := m["pattern"].(string)
		if path != "" && pattern != "" {
			out = append(out, handoff.TextHit{Path: path, Pattern: pattern})
		}
	}
	return out
}

// WrapValues wraps every value of a context package as {"untrusted_data": value},
// leaving values already wrapped as they are. A nil package becomes an empty one.
func WrapValues(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	for k, v := range m {
		if !isWrapped(v) {
			m[k] = map[string]any{UntrustedKey: v}
		}
	}
	return m
}

func isWrapped(v any) bool {
	w, ok := v.(map[string]any)
	if !ok || len(w) != 1 {
		return false
	}
	_, ok = w[UntrustedKey]
	return ok
}
