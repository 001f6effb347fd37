package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/handoff-dev/handoff"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/internal/canonjson"
)

// Redaction is handoff.Redaction.
type Redaction = handoff.Redaction

// redactionTable is guardrails.redaction.
type redactionTable struct {
	codes  map[string]bool
	keep   [][]string
	marker string
}

// redactionTable reads guardrails.redaction from the core tables. A missing or
// malformed table redacts on the default codes with nothing kept but the envelope ids:
// redaction never fails open.
func (dc *Decider) redactionTable() redactionTable {
	t := redactionTable{codes: map[string]bool{}, marker: "[REDACTED]"}
	g, _ := dc.contracts.guardrails.(map[string]any)
	tab, _ := g["redaction"].(map[string]any)
	codes, _ := tab["codes"].([]any)
	for _, c := range codes {
		if s, ok := c.(string); ok {
			t.codes[s] = true
		}
	}
	if len(t.codes) == 0 {
		for _, c := range []string{"FORBIDDEN_CONTENT", "PERSONAL_DATA_EXPOSED", "CONTEXT_FORBIDDEN"} {
			t.codes[c] = true
		}
	}
	keep, _ := tab["keep"].([]any)
	for _, k := range keep {
		if s, ok := k.(string); ok && s != "" {
			t.keep = append(t.keep, strings.Split(s, "."))
		}
	}
	if len(t.keep) == 0 {
		t.keep = [][]string{{"request_id"}, {"kind"}, {"tenant_id"}, {"workflow_id"}}
	}
	if m, ok := tab["marker"].(string); ok && m != "" {
		t.marker = m
	}
	return t
}

// ErrUnrecordable is returned by Submit for a request that carries a string to redact (a
// secret) in a field the store keys records by (request_id, tenant_id, workflow_id): it
// cannot be recorded at all, redacted or not, so nothing is. Sending it again gets the
// same answer; the host treats it as blocked.
var ErrUnrecordable = handoff.ErrUnrecordable

// plainKey is an object key kept in a redacted copy: a lower-case field name.
var plainKey = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// minSecret is the shortest offending string scrubbed from messages: shorter ones are
// not secrets and would mangle unrelated words.
const minSecret = 4

// redact runs at the end of decide. When the scan found forbidden content in the request,
// or a reason of the decision has a code of guardrails.redaction, whatever else the
// decision says (a request refused UNKNOWN_FIELD is redacted too), it prepares the
// redacted copy of the request the log will record (r.redacted, r.redaction), derives
// the recorded derived values from that copy, removes the offending strings (and quoted
// replaced ones) from the decision's and the validation's messages and paths and from
// the decision's trace_id, and makes sure the decision blocks. It returns the state to
// record (nil when it forced a block). When the copy cannot be made safe, r.redactErr is
// set and Submit records nothing.
func (dc *Decider) redact(r *request, d *Decision, next *State) *State {
	tab := dc.redactionTable()
	var codes []string
	for _, rs := range d.Reasons {
		if tab.codes[rs.Code] && !slices.Contains(codes, rs.Code) {
			codes = append(codes, rs.Code)
		}
	}
	hits := forbiddenPaths(r.derived)
	if len(hits) > 0 && !slices.Contains(codes, codeForbiddenContent) {
		codes = append(codes, codeForbiddenContent)
	}
	if len(codes) == 0 || r.value == nil {
		return next
	}
	sort.Strings(codes)
	// The strings the reasons and the scan's hits point at. A reason without a path that
	// resolves makes every replaced string count as offending.
	offending := map[string]bool{}
	all := false
	for _, rs := range d.Reasons {
		if tab.codes[rs.Code] && !collectAt(r.value, rs.Path, offending) {
			all = true
		}
	}
	for _, p := range hits {
		if !collectAt(r.value, p, offending) {
			all = true
		}
	}
	rd := &redactor{tab: tab, offending: offending, replaced: map[string]bool{}, keys: map[string]bool{}}
	cp := rd.object(r.value, nil).(map[string]any)
	if all {
		for s := range rd.replaced {
			offending[s] = true
		}
	}
	secrets := secretList(offending)
	if d.Outcome != Block {
		*d = *dc.rebase(d, dc.failClosed(codePolicyError, fmt.Sprintf("the policy's decision carries %s but does not block: a request carrying content to redact never changes a workflow", strings.Join(codes, ", "))))
		next = nil
	}
	quoted := quotedForms(rd.replaced)
	scrubDecision(d, secrets, quoted, tab.marker)
	for i := range r.validation {
		r.validation[i].Message = scrubAll(r.validation[i].Message, secrets, quoted, tab.marker)
		r.validation[i].Path = scrub(r.validation[i].Path, secrets, tab.marker)
	}
	if !canary.RecordRawDerived {
		r.derived = dc.redactedDerived(r.derived, cp, secretList(rd.keys), secrets, tab.marker)
	}
	red := &Redaction{Codes: codes, Marker: tab.marker, Replaced: rd.count, RequestDigest: r.digest, BodySHA256: bodySHA256(r.body)}
	for _, k := range tab.keep {
		red.Kept = append(red.Kept, strings.Join(k, "."))
	}
	if holds(d.RequestID, secrets) || holds(d.TenantID, secrets) || holds(d.WorkflowID, secrets) {
		r.redactErr = ErrUnrecordable
		return nil
	}
	// Whatever else of the decision a policy filled from the request (a conflict id,
	// a gate) must not carry a secret either: such a decision fails closed.
	if leaks(d, secrets) {
		*d = *dc.rebase(d, dc.failClosed(codePolicyError, "the policy's decision quotes content that must be redacted"))
		scrubDecision(d, secrets, quoted, tab.marker)
		if leaks(d, secrets) {
			r.redactErr = ErrUnrecordable
			return nil
		}
	}
	// The messages and the decision's own strings are scrubbed; the copy is checked.
	if leaks(cp, secrets) {
		cp = map[string]any{"request_id": d.RequestID, "kind": d.Kind, "tenant_id": d.TenantID, "workflow_id": d.WorkflowID}
		red.Stub, red.Kept = true, []string{"request_id", "kind", "tenant_id", "workflow_id"}
		if leaks(cp, secrets) {
			r.redactErr = ErrUnrecordable
			return nil
		}
	}
	r.redacted, r.redaction = cp, red
	return next
}

// codeForbiddenContent is the code of a scan hit of guardrails.forbidden.
const codeForbiddenContent = "FORBIDDEN_CONTENT"

// forbiddenPaths are the paths of the scan's forbidden hits among the derived values.
func forbiddenPaths(derived map[string]any) []string {
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

// redactedDerived is what the log records of the derived values of a redacted request:
// nothing the engine derives may carry what the redaction removed. The references and
// scope fields are derived again from the redacted copy; the scan's hits keep their
// patterns, their paths scrubbed of replaced keys and offending strings; hashes, sizes
// and the jitter stay. If anything still holds an offending string, only the numbers
// and hashes are kept.
func (dc *Decider) redactedDerived(derived, cp map[string]any, keys, secrets []string, marker string) map[string]any {
	out := make(map[string]any, len(derived))
	for k, v := range derived {
		out[k] = v
	}
	out["refs"] = collectRefs(cp)
	out["scopes"] = scanScopes(cp, dc.contracts.scanner.scopeTable())
	for _, kind := range []string{"forbidden", "injection"} {
		hits, _ := derived[kind].([]any)
		scrubbed := make([]any, 0, len(hits))
		for _, h := range hits {
			m, ok := h.(map[string]any)
			if !ok {
				continue
			}
			p, _ := m["path"].(string)
			scrubbed = append(scrubbed, map[string]any{"path": scrub(scrub(p, secrets, marker), keys, marker), "pattern": m["pattern"]})
		}
		out[kind] = scrubbed
	}
	if leaks(out, secrets) {
		for _, k := range []string{"refs", "scopes", "forbidden", "injection"} {
			out[k] = []any{}
		}
	}
	return out
}

// redactor builds the redacted copy of a request.
type redactor struct {
	tab       redactionTable
	offending map[string]bool
	replaced  map[string]bool // every string and key replaced
	keys      map[string]bool // the keys replaced
	count     int
}

func (rd *redactor) string(s string) any {
	rd.count++
	rd.replaced[s] = true
	return rd.tab.marker
}

// object copies a request object at path; strings of kept fields stay.
func (rd *redactor) object(m map[string]any, path []string) any {
	out := make(map[string]any, len(m))
	n := 0
	for _, k := range sortedMapKeys(m) {
		p := append(slices.Clone(path), k)
		key := k
		if !plainKey.MatchString(k) || rd.offending[k] {
			n++
			rd.count++
			rd.replaced[k] = true
			rd.keys[k] = true
			key = rd.tab.marker + "#" + strconv.Itoa(n)
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
				key = rd.tab.marker + "#" + strconv.Itoa(len(out)+1)
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
	for _, k := range rd.tab.keep {
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
		keys := sortedMapKeys(x)
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

// scrub replaces every offending string in s with the marker.
func scrub(s string, secrets []string, marker string) string {
	for _, x := range secrets {
		if strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, marker)
		}
	}
	return s
}

func scrubDecision(d *Decision, secrets, quoted []string, marker string) {
	for i := range d.Reasons {
		d.Reasons[i].Message = scrubAll(d.Reasons[i].Message, secrets, quoted, marker)
		d.Reasons[i].Path = scrub(d.Reasons[i].Path, secrets, marker)
	}
	d.TraceID = scrub(d.TraceID, secrets, marker)
	d.Kind = scrub(d.Kind, secrets, marker)
}

// scrubAll scrubs a message of the offending strings and of every replaced string it
// quotes (a policy quotes request values with %q): a message carries nothing the
// redacted copy does not.
func scrubAll(s string, secrets, quoted []string, marker string) string {
	s = scrub(s, secrets, marker)
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

// holds says s contains an offending string.
func holds(s string, secrets []string) bool {
	for _, x := range secrets {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// leaks says the canonical JSON of v contains an offending string (or cannot be
// encoded, which counts as a leak: redaction fails closed).
func leaks(v any, secrets []string) bool {
	b, err := canonjson.Marshal(v)
	if err != nil {
		return true
	}
	return holds(string(b), secrets)
}

func bodySHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
