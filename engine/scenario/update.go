package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

// RunAll plays every step in order as Run does, calling fn after each, but goes on
// after a mismatch: the later steps are decided on the state the decisions actually
// made. It stops only when a step cannot be played (its request cannot be rendered or
// submitted), with that error. It is how expectations are brought up to date after a
// deliberate rule change (Rewrite).
func RunAll(ctx context.Context, eng Engine, s *Scenario, fn func(Result)) error {
	return run(ctx, eng, s, fn, true)
}

// Rewrite returns the scenario file data with the expectations of its steps replaced by
// what results (the steps as played, by RunAll) decided: each step's outcome and
// reasons, and its status_after, next and state_version where the step states them
// (a field the step leaves out stays out). Only values that no longer hold are
// rewritten, in place, in the file's own layout (indentation, one line or several), so
// the change is the smallest diff; a reasons list is written sorted. changed says
// whether anything was rewritten.
func Rewrite(data []byte, results []Result) (out []byte, changed bool, err error) {
	s, err := Parse(data)
	if err != nil {
		return nil, false, err
	}
	root, err := objectFields(data, skipSpace(data, 0))
	if err != nil {
		return nil, false, fmt.Errorf("scenario: %w", err)
	}
	steps, ok := root.get("steps")
	if !ok {
		return nil, false, fmt.Errorf("scenario: no steps")
	}
	elems, err := arrayElems(data, steps.val)
	if err != nil {
		return nil, false, fmt.Errorf("scenario: %w", err)
	}
	var edits []edit
	for _, r := range results {
		i := r.Step - 1
		if r.Decision == nil || i < 0 || i >= len(s.Steps) || i >= len(elems) {
			continue
		}
		step, err := objectFields(data, elems[i].start)
		if err != nil {
			return nil, false, fmt.Errorf("scenario: step %d: %w", r.Step, err)
		}
		ex, ok := step.get("expect")
		if !ok {
			return nil, false, fmt.Errorf("scenario: step %d has no expect", r.Step)
		}
		expect, err := objectFields(data, ex.val)
		if err != nil {
			return nil, false, fmt.Errorf("scenario: step %d: expect: %w", r.Step, err)
		}
		edits = append(edits, expectEdits(data, expect, s.Steps[i].Expect, r.Decision)...)
	}
	if len(edits) == 0 {
		return data, false, nil
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out = slices.Clone(data)
	for _, e := range edits {
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	return out, true, nil
}

// expectEdits are the edits that bring one step's expect object to decision d.
func expectEdits(data []byte, obj object, want Expect, d *engine.Decision) []edit {
	var edits []edit
	scalar := func(key, value string) {
		if f, ok := obj.get(key); ok {
			edits = append(edits, edit{f.val, f.end, value})
			return
		}
		edits = append(edits, obj.insert(data, key, value))
	}
	list := func(key string, items []string) {
		if f, ok := obj.get(key); ok {
			edits = append(edits, edit{f.val, f.end, formatList(data, obj, f.val, f.end, items, lineIndent(data, f.keyStart))})
			return
		}
		edits = append(edits, obj.insert(data, key, formatList(data, obj, -1, -1, items, obj.fieldIndent(data))))
	}
	if d.Outcome != want.Outcome {
		scalar("outcome", quote(string(d.Outcome)))
	}
	if got := uniqueSorted(d.Codes()); !slices.Equal(got, uniqueSorted(want.Reasons)) {
		list("reasons", got)
	}
	if want.StatusAfter != "" && d.StatusAfter != want.StatusAfter {
		scalar("status_after", quote(d.StatusAfter))
	}
	if want.Next != nil {
		agents := []string{}
		for _, n := range d.Next {
			if !slices.Contains(agents, n.Agent) {
				agents = append(agents, n.Agent)
			}
		}
		if !slices.Equal(uniqueSorted(agents), uniqueSorted(want.Next)) {
			list("next", agents)
		}
	}
	if want.StateVersion != nil && d.StateVersion != *want.StateVersion {
		scalar("state_version", strconv.FormatUint(d.StateVersion, 10))
	}
	return edits
}

// edit replaces data[start:end] with text.
type edit struct {
	start, end int
	text       string
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// formatList lays out items as the list at data[start:end] (start -1: a new field of
// obj) is laid out: on one line with its separator, or one item a line at its items'
// indentation, closed at keyIndent. An empty list is []; a list that was empty, or a
// new one, takes several lines when its object does.
func formatList(data []byte, obj object, start, end int, items []string, keyIndent string) string {
	if len(items) == 0 {
		return "[]"
	}
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = quote(s)
	}
	var old []span
	multi := obj.multiline(data)
	if start >= 0 {
		old, _ = arrayElems(data, start)
		if len(old) > 0 {
			multi = bytes.Contains(data[start:end], []byte("\n"))
		}
	}
	if !multi {
		sep := ", "
		if len(old) >= 2 {
			sep = string(data[old[0].end:old[1].start])
		}
		return "[" + strings.Join(quoted, sep) + "]"
	}
	inner := keyIndent + obj.unit(data)
	if len(old) > 0 {
		inner = lineIndent(data, old[0].start)
	}
	return "[\n" + inner + strings.Join(quoted, ",\n"+inner) + "\n" + keyIndent + "]"
}

// lineIndent is the leading white space of the line offset i is on.
func lineIndent(data []byte, i int) string {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// A field of a JSON object: where its key starts, where its value starts and ends.
type field struct {
	key           string
	keyStart, val int
	end           int
}

// object is the fields of one JSON object, in order, and where it starts and ends.
type object struct {
	start, end int
	fields     []field
}

func (o object) get(key string) (field, bool) {
	for _, f := range o.fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// multiline says the object's fields are laid out on lines of their own.
func (o object) multiline(data []byte) bool {
	return bytes.Contains(data[o.start:o.end], []byte("\n"))
}

// fieldIndent is the indentation of the object's fields (of its first).
func (o object) fieldIndent(data []byte) string {
	if len(o.fields) == 0 {
		return lineIndent(data, o.start) + "  "
	}
	return lineIndent(data, o.fields[0].keyStart)
}

// unit is one level of indentation: the object's fields' less the object's own.
func (o object) unit(data []byte) string {
	outer, inner := lineIndent(data, o.start), o.fieldIndent(data)
	if len(inner) > len(outer) {
		return inner[len(outer):]
	}
	return "  "
}

// insert is the edit that adds a field after the object's last, in its layout.
func (o object) insert(data []byte, key, value string) edit {
	at := o.end - 1 // the closing brace
	if len(o.fields) > 0 {
		at = o.fields[len(o.fields)-1].end
	}
	sep := ", "
	if o.multiline(data) {
		sep = ",\n" + o.fieldIndent(data)
	}
	if len(o.fields) == 0 {
		sep = ""
	}
	return edit{start: at, end: at, text: sep + quote(key) + ": " + value}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns where the JSON value starting at i ends.
func valueEnd(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, fmt.Errorf("unexpected end of file")
	}
	switch data[i] {
	case '{':
		o, err := objectFields(data, i)
		return o.end, err
	case '[':
		var end int
		_, err := arrayElemsEnd(data, i, &end)
		return end, err
	case '"':
		for j := i + 1; j < len(data); j++ {
			switch data[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, fmt.Errorf("unterminated string at offset %d", i)
	}
	j := i
	for j < len(data) && bytes.IndexByte([]byte(",]} \t\r\n"), data[j]) < 0 {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("no value at offset %d", i)
	}
	return j, nil
}

// objectFields reads the object starting at i.
func objectFields(data []byte, i int) (object, error) {
	o := object{start: i}
	if i >= len(data) || data[i] != '{' {
		return o, fmt.Errorf("no object at offset %d", i)
	}
	j := skipSpace(data, i+1)
	if j < len(data) && data[j] == '}' {
		o.end = j + 1
		return o, nil
	}
	for {
		if j >= len(data) || data[j] != '"' {
			return o, fmt.Errorf("no key at offset %d", j)
		}
		kend, err := valueEnd(data, j)
		if err != nil {
			return o, err
		}
		var key string
		if err := json.Unmarshal(data[j:kend], &key); err != nil {
			return o, err
		}
		c := skipSpace(data, kend)
		if c >= len(data) || data[c] != ':' {
			return o, fmt.Errorf("no colon at offset %d", c)
		}
		v := skipSpace(data, c+1)
		vend, err := valueEnd(data, v)
		if err != nil {
			return o, err
		}
		o.fields = append(o.fields, field{key: key, keyStart: j, val: v, end: vend})
		j = skipSpace(data, vend)
		if j < len(data) && data[j] == ',' {
			j = skipSpace(data, j+1)
			continue
		}
		if j < len(data) && data[j] == '}' {
			o.end = j + 1
			return o, nil
		}
		return o, fmt.Errorf("unexpected %q at offset %d", data[min(j, len(data)-1)], j)
	}
}

// span is where one value starts and ends.
type span struct{ start, end int }

// arrayElems reads the elements of the array starting at i.
func arrayElems(data []byte, i int) ([]span, error) {
	var end int
	return arrayElemsEnd(data, i, &end)
}

func arrayElemsEnd(data []byte, i int, end *int) ([]span, error) {
	if i >= len(data) || data[i] != '[' {
		return nil, fmt.Errorf("no array at offset %d", i)
	}
	var out []span
	j := skipSpace(data, i+1)
	if j < len(data) && data[j] == ']' {
		*end = j + 1
		return out, nil
	}
	for {
		vend, err := valueEnd(data, j)
		if err != nil {
			return nil, err
		}
		out = append(out, span{j, vend})
		j = skipSpace(data, vend)
		if j < len(data) && data[j] == ',' {
			j = skipSpace(data, j+1)
			continue
		}
		if j < len(data) && data[j] == ']' {
			*end = j + 1
			return out, nil
		}
		return nil, fmt.Errorf("unexpected character at offset %d", j)
	}
}
