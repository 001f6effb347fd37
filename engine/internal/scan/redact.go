package scan

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/handoff-dev/handoff/internal/canonjson"
)

// RedactionTable is guardrails.redaction: the reason codes that require a redacted copy
// of the request, the fields kept as they arrived and the marker that replaces the rest.
type RedactionTable struct {
	// Codes are the reason codes that require the redaction.
	Codes map[string]bool
	// Keep are the kept fields, each a path of keys.
	Keep [][]string
	// Marker replaces every string outside the kept fields.
	Marker string
}

// ReadRedactionTable reads guardrails.redaction from the core tables. A missing or
// malformed table redacts on the default codes with nothing kept but the envelope ids:
// redaction never fails open.
func ReadRedactionTable(guardrails any) RedactionTable {
	t := RedactionTable{Codes: map[string]bool{}, Marker: "[REDACTED]"}
	g, _ := guardrails.(map[string]any)
	tab, _ := g["redaction"].(map[string]any)
	codes, _ := tab["codes"].([]any)
	for _, c := range codes {
		if s, ok := c.(string); ok {
			t.Codes[s] = true
		}
	}
	if len(t.Codes) == 0 {
		for _, c := range []string{"FORBIDDEN_CONTENT", "PERSONAL_DATA_EXPOSED", "CONTEXT_FORBIDDEN"} {
			t.Codes[c] = true
		}
	}
	keep, _ := tab["keep"].([]any)
	for _, k := range keep {
		if s, ok := k.(string); ok && s != "" {
			t.Keep = append(t.Keep, strings.Split(s, "."))
		}
	}
	if len(t.Keep) == 0 {
		t.Keep = [][]string{{"request_id"}, {"kind"}, {"tenant_id"}, {"workflow_id"}}
	}
	if m, ok := tab["marker"].(string); ok && m != "" {
		t.Marker = m
	}
	return t
}

// Redacted is the redacted copy of a request and what it replaced.
type Redacted struct {
	// Value is the copy: every string outside the kept fields, and every offending string
	// inside them, replaced by the marker; an object key that is not a plain lower-case
	// field name (or is offending) replaced by Marker#N.
	Value map[string]any
	// Secrets are the offending strings long enough to scrub, longest first, each with
	// the escaped forms a message may quote it in.
	Secrets []string
	// Quoted are the replaced strings as a message quotes them (%q), longest first.
	Quoted []string
	// Keys are the replaced keys long enough to scrub, as Secrets.
	Keys []string
	// Replaced counts the strings and keys replaced by the marker.
	Replaced int
}

// Redact makes the redacted copy of a request. The offending strings are those at the
// given paths (the reasons' and the scan hits' paths, in the policies' notation): the
// string there, the key the path ends with, and every string and key below it. A path
// that does not resolve makes every replaced string count as offending.
func (t RedactionTable) Redact(v map[string]any, paths []string) Redacted {
	offending := map[string]bool{}
	all := false
	for _, p := range paths {
		if !collectAt(v, p, offending) {
			all = true
		}
	}
	rd := &redactor{tab: t, offending: offending, replaced: map[string]bool{}, keys: map[string]bool{}}
	cp := rd.object(v, nil).(map[string]any)
	if all {
		for s := range rd.replaced {
			offending[s] = true
		}
	}
	return Redacted{Value: cp, Secrets: secretList(offending), Quoted: quotedForms(rd.replaced), Keys: secretList(rd.keys), Replaced: rd.count}
}

// plainKey is an object key kept in a redacted copy: a lower-case field name.
var plainKey = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// minSecret is the shortest offending string scrubbed from messages: shorter ones are
// not secrets and would mangle unrelated words.
const minSecret = 4

// ForbiddenPaths are the paths of the scan's forbidden hits among the derived values.
func ForbiddenPaths(derived map[string]any) []string {
	var out []string
	hits, _ := derived["forbidden"].([]any)
	for _, h := range hits {
		if m, ok := h.(map[string]any); ok {
			if p, ok := m["path"].(string); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// RedactedDerived is what the log records of the derived values of a redacted request:
// nothing the engine derives may carry what the redaction removed. The references and
// scope fields are derived again from the redacted copy; the scan's hits keep their
// patterns, their paths scrubbed of replaced keys and offending strings; hashes, sizes
// and the jitter stay. If anything still holds an offending string, only the numbers
// and hashes are kept.
func (s *Scanner) RedactedDerived(derived, cp map[string]any, keys, secrets []string, marker string) map[string]any {
	out := make(map[string]any, len(derived))
	for k, v := range derived {
		out[k] = v
	}
	out["refs"] = Refs(cp)
	out["scopes"] = Scopes(cp, s.ScopeFields())
	for _, kind := range []string{"forbidden", "injection"} {
		hits, _ := derived[kind].([]any)
		scrubbed := make([]any, 0, len(hits))
		for _, h := range hits {
			m, ok := h.(map[string]any)
			if !ok {
				continue
			}
			p, _ := m["path"].(string)
			scrubbed = append(scrubbed, map[string]any{"path": Scrub(Scrub(p, secrets, marker), keys, marker), "pattern": m["pattern"]})
		}
		out[kind] = scrubbed
	}
	if Leaks(out, secrets) {
		for _, k := range []string{"refs", "scopes", "forbidden", "injection"} {
			out[k] = []any{}
		}
	}
	return out
}

// redactor builds the redacted copy of a request.
type redactor struct {
	tab       RedactionTable
	offending map[string]bool
	replaced  map[string]bool // every string and key replaced
	keys      map[string]bool // the keys replaced
	count     int
}

func (rd *redactor) string(s string) any {
	rd.count++
	rd.replaced[s] = true
	return rd.tab.Marker
}

// object copies a request object at path; strings of kept fields stay.
func (rd *redactor) object(m map[string]any, path []string) any {
	out := make(map[string]any, len(m))
	n := 0
	for _, k := range SortedKeys(m) {
		p := append(slices.Clone(path), k)
		key := k
		if !plainKey.MatchString(k) || rd.offending[k] {
			n++
			rd.count++
			rd.replaced[k] = true
			rd.keys[k] = true
			key = rd.tab.Marker + "#" + strconv.Itoa(n)
		}
		if rd.kept(p) {
			out[key] = rd.keptValue(m[k])
		} else {
			out[key] = rd.value(m[k], p)
		}
	}
	return out
}

func (rd *redactor) value(v any, path []string) any {
	switch x := v.(type) {
	case map[string]any:
		return rd.object(x, path)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rd.value(e, path)
		}
		return out
	case string:
		return rd.string(x)
	}
	return v
}

// keptValue copies a kept value, replacing only the offending strings in it.
func (rd *redactor) keptValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			key := k
			if rd.offending[k] {
				rd.count++
				rd.replaced[k] = true
				rd.keys[k] = true
				key = rd.tab.Marker + "#" + strconv.Itoa(len(out)+1)
			}
			out[key] = rd.keptValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rd.keptValue(e)
		}
		return out
	case string:
		if rd.offending[x] {
			return rd.string(x)
		}
	}
	return v
}

// kept says a request path is a kept field (a top-level field or a dotted one inside
// an object; a path below a kept field is kept too).
func (rd *redactor) kept(path []string) bool {
	for _, k := range rd.tab.Keep {
		if len(path) >= len(k) && slices.Equal(path[:len(k)], k) {
			return true
		}
	}
	return false
}

// collectAt adds the strings at a reason path (output.content.notes, context.secrets,
// brief.messages[2]) to out: the string there, the key the path ends with, and every
// string and key below it; a plain lower-case key is a field name, not content. It
// reports false when the path does not resolve.
func collectAt(v any, path string, out map[string]bool) bool {
	if path == "" {
		return false
	}
	return walkPath(v, path, func(key string, at any) {
		if key != "" && !plainKey.MatchString(key) {
			out[key] = true
		}
		collectAll(at, out)
	})
}

// walkPath finds the value a path in the policies' notation names: keys joined by dots
// (a key may itself hold dots), indices in brackets. found gets the last key (empty
// after an index) and the value.
func walkPath(v any, path string, found func(key string, at any)) bool {
	if path == "" {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		// Longest key first, so a key with a dot in it wins over a shorter one.
		keys := SortedKeys(x)
		sort.SliceStable(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
		for _, k := range keys {
			rest, ok := strings.CutPrefix(path, k)
			if !ok {
				continue
			}
			switch {
			case rest == "":
				found(k, x[k])
				return true
			case rest[0] == '.':
				if walkPath(x[k], rest[1:], found) {
					return true
				}
			case rest[0] == '[':
				if walkIndex(x[k], rest, found) {
					return true
				}
			}
		}
	case []any:
		return walkIndex(x, path, found)
	}
	return false
}

func walkIndex(v any, path string, found func(key string, at any)) bool {
	list, ok := v.([]any)
	if !ok || !strings.HasPrefix(path, "[") {
		return false
	}
	end := strings.IndexByte(path, ']')
	if end < 0 {
		return false
	}
	i, err := strconv.Atoi(path[1:end])
	if err != nil || i < 0 || i >= len(list) {
		return false
	}
	rest := path[end+1:]
	switch {
	case rest == "":
		found("", list[i])
		return true
	case rest[0] == '.':
		return walkPath(list[i], rest[1:], found)
	case rest[0] == '[':
		return walkIndex(list[i], rest, found)
	}
	return false
}

// collectAll adds every string and key below v.
func collectAll(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !plainKey.MatchString(k) {
				out[k] = true
			}
			collectAll(e, out)
		}
	case []any:
		for _, e := range x {
			collectAll(e, out)
		}
	case string:
		out[x] = true
	}
}

// secretList is the offending strings long enough to scrub, longest first, each with
// the escaped forms a message may quote it in.
func secretList(set map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(s) >= minSecret && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for s := range set {
		add(s)
		q := strconv.Quote(s)
		add(q[1 : len(q)-1])
		if b, err := canonjson.Marshal(s); err == nil {
			add(string(b[1 : len(b)-1]))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// Scrub replaces every offending string in s with the marker.
func Scrub(s string, secrets []string, marker string) string {
	for _, x := range secrets {
		if strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, marker)
		}
	}
	return s
}

// ScrubAll scrubs a message of the offending strings and of every replaced string it
// quotes (a policy quotes request values with %q): a message carries nothing the
// redacted copy does not.
func ScrubAll(s string, secrets, quoted []string, marker string) string {
	s = Scrub(s, secrets, marker)
	for _, q := range quoted {
		if strings.Contains(s, q) {
			s = strings.ReplaceAll(s, q, strconv.Quote(marker))
		}
	}
	return s
}

// quotedForms are the replaced strings as a message quotes them, longest first.
func quotedForms(replaced map[string]bool) []string {
	out := make([]string, 0, len(replaced))
	for s := range replaced {
		if s != "" {
			out = append(out, strconv.Quote(s))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// Holds says s contains an offending string.
func Holds(s string, secrets []string) bool {
	for _, x := range secrets {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// Leaks says the canonical JSON of v contains an offending string (or cannot be
// encoded, which counts as a leak: redaction fails closed).
func Leaks(v any, secrets []string) bool {
	b, err := canonjson.Marshal(v)
	if err != nil {
		return true
	}
	return Holds(string(b), secrets)
}
