package console

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// field is one value of an artifact's content as the page shows it: its name and
// the contract's description of it, and the value by kind. Every part is text the
// templates escape; none is markup.
type field struct {
	Name        string // the key in its object; empty for an element of a list
	Description string // the contract's doc comment of the field
	Kind        string // text, long, plain, empty, list or object
	Text        string // the value of a text, long or plain field
	Summary     string // a folded object's first words, to recognize it by
	Items       []field
}

// longText is the length from which a text is set as a block of its own.
const longText = 100

// maxDepth bounds the nesting the page unfolds; deeper content is shown as JSON.
const maxDepth = 24

// contentFields are the fields of an artifact's content, labelled by its schema and
// in the order the contract declares them; fields the schema does not name follow,
// sorted.
func contentFields(content map[string]any, s schema) []field {
	return objectFields(content, s, 0)
}

func objectFields(obj map[string]any, s schema, depth int) []field {
	names := slices.DeleteFunc(s.order(), func(n string) bool { _, ok := obj[n]; return !ok })
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	out := make([]field, 0, len(names))
	for _, k := range names {
		f := value(obj[k], s.property(k), depth+1)
		f.Name = k
		out = append(out, f)
	}
	return out
}

// value is one value of the content under its schema.
func value(v any, s schema, depth int) field {
	_, desc := s.resolved()
	f := field{Description: desc}
	if depth > maxDepth {
		b, _ := json.Marshal(v)
		f.Kind, f.Text = "long", string(b)
		return f
	}
	switch x := v.(type) {
	case nil:
		f.Kind, f.Text = "empty", "none"
	case string:
		f.Kind, f.Text = "text", x
		if len(x) >= longText || strings.Contains(x, "\n") {
			f.Kind = "long"
		}
	case bool:
		f.Kind, f.Text = "plain", strconv.FormatBool(x)
	case float64:
		f.Kind, f.Text = "plain", strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		f.Kind, f.Text = "plain", x.String()
	case []any:
		if len(x) == 0 {
			f.Kind, f.Text = "empty", "none"
			break
		}
		f.Kind = "list"
		for _, el := range x {
			f.Items = append(f.Items, value(el, s.items(), depth+1))
		}
	case map[string]any:
		if len(x) == 0 {
			f.Kind, f.Text = "empty", "none"
			break
		}
		f.Kind = "object"
		f.Items = objectFields(x, s, depth)
		f.Summary = summary(f.Items)
	default:
		b, _ := json.Marshal(v)
		f.Kind, f.Text = "plain", string(b)
	}
	return f
}

// summaryLength bounds the words a folded object shows of itself.
const summaryLength = 90

// summary is the first text among an object's fields, cut short: what the reader
// sees of a folded object before unfolding it.
func summary(fields []field) string {
	for _, f := range fields {
		if f.Kind == "text" || f.Kind == "long" {
			r := []rune(f.Text)
			if len(r) > summaryLength {
				return string(r[:summaryLength]) + "…"
			}
			return f.Text
		}
	}
	return ""
}
