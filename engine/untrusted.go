package engine

// untrustedKey wraps a value of a context package: what agents, tools and customers wrote
// reaches the next agent as data, inside a delimiter the host cannot mistake for its own
// instructions.
const untrustedKey = "untrusted_data"

// wrapUntrusted wraps every value of every context package of the decision as
// {"untrusted_data": value}, leaving values a policy already wrapped as they are, and
// flags the request's strings that look like instructions. Every
// value of a package comes from a request or an artifact some agent, tool or person wrote:
// whatever a policy passes on, and whatever pattern it did not recognise as an
// instruction, reaches the next agent marked as data.
func wrapUntrusted(next []Next, flags []TextHit) {
	for i := range next {
		next[i].Context.MustKnow = wrapValues(next[i].Context.MustKnow)
		next[i].Context.MayKnow = wrapValues(next[i].Context.MayKnow)
		if len(flags) > 0 {
			next[i].Context.Flags = flags
		}
	}
}

// injectionFlags are the scan's injection hits among the derived values.
func injectionFlags(derived map[string]any) []TextHit {
	hits, _ := derived["injection"].([]any)
	var out []TextHit
	for _, h := range hits {
		m, _ := h.(map[string]any)
		path, _ := m["path"].(string)
		pattern, _ := m["pattern"].(string)
		if path != "" && pattern != "" {
			out = append(out, TextHit{Path: path, Pattern: pattern})
		}
	}
	return out
}

func wrapValues(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	for k, v := range m {
		if !isWrapped(v) {
			m[k] = map[string]any{untrustedKey: v}
		}
	}
	return m
}

func isWrapped(v any) bool {
	w, ok := v.(map[string]any)
	if !ok || len(w) != 1 {
		return false
	}
	_, ok = w[untrustedKey]
	return ok
}
