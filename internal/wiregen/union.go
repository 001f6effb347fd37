package wiregen

import (
	"fmt"

	"cuelang.org/go/cue"
)

// member is one struct of a disjunction, with the doc of the definition it came from.
type member struct {
	v   cue.Value
	doc string
}

// union flattens a disjunction of structs into one struct: the union of the members'
// fields, each where it first appears. A field some member lacks is omitempty, since
// a value of that member never carries it.
func (g *deriver) union(v cue.Value, path string) ([]Field, error) {
	members, err := expand(v, "")
	if err != nil {
		return nil, fmt.Errorf("wiregen: %s: %w", path, err)
	}
	var out []Field
	var origin []string // the doc of the member that brought each field
	count := map[string]int{}
	for _, m := range members {
		fields, err := g.fields(m.v, path)
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			count[f.Label]++
			if i := indexOf(out, f.Label); i >= 0 {
				if out[i].GoType != f.GoType {
					return nil, fmt.Errorf("wiregen: %s.%s is %s in one member and %s in another",
						path, f.Label, out[i].GoType, f.GoType)
				}
				out[i].OmitEmpty = out[i].OmitEmpty || f.OmitEmpty
				if out[i].Doc == "" {
					out[i].Doc = f.Doc
				}
				continue
			}
			out = append(out, f)
			origin = append(origin, m.doc)
		}
	}
	// A field every member has (type) heads the struct; the others are grouped by the
	// member that brought them, under its doc.
	grouped := map[string]bool{}
	for i := range out {
		if count[out[i].Label] == len(members) {
			continue
		}
		out[i].OmitEmpty = true
		if !grouped[origin[i]] {
			grouped[origin[i]] = true
			out[i].Group = origin[i]
		}
	}
	return out, nil
}

// expand lists the structs a value may be: each disjunct, with references followed
// and conjunctions of disjunctions multiplied out ({a} & ({b} | {c}) is {a,b} | {a,c}).
// The parts of a conjunction are closed definitions on their own, so they are unified
// with the fields the whole conjunction allows (UnifyAccept), not each other's.
func expand(v cue.Value, doc string) ([]member, error) {
	op, args := v.Expr()
	switch op {
	case cue.OrOp:
		var out []member
		for _, a := range args {
			ms, err := expand(a, doc)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
		return out, nil
	case cue.AndOp:
		out, err := expand(args[0], doc)
		if err != nil {
			return nil, err
		}
		for _, a := range args[1:] {
			ms, err := expand(a, doc)
			if err != nil {
				return nil, err
			}
			var next []member
			for _, x := range out {
				for _, y := range ms {
					next = append(next, member{v: x.v.UnifyAccept(y.v, v), doc: doc})
				}
			}
			out = next
		}
		return out, nil
	case cue.SelectorOp:
		root, p := v.ReferencePath()
		if len(p.Selectors()) == 0 {
			return nil, fmt.Errorf("cannot follow %v", v)
		}
		def := root.LookupPath(p)
		return expand(def, docOf(def))
	}
	return []member{{v: v, doc: doc}}, nil
}
