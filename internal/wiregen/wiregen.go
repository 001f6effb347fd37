// Package wiregen derives the vocabulary's wire types from the core CUE contracts and
// writes them as Go (wire_gen.go at the module root), so that CUE is their one source.
package wiregen

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
)

// Struct is one Go struct derived from a CUE definition or an inline CUE struct.
type Struct struct {
	CUE    string // the definition, or the path of an inline struct
	GoName string
	Doc    string
	Fields []Field
	// HandWritten says why the Go type is written by hand; "" when it is generated.
	HandWritten string
}

// Field is one field of a Struct, in CUE order.
type Field struct {
	Label     string // the CUE label: the JSON name
	GoName    string
	GoType    string
	OmitEmpty bool
	Doc       string
	// Group is the doc of the disjunct that first brings the field into a flattened
	// disjunction, set on that disjunct's first field.
	Group string
}

// Tag is the field's struct tag.
func (f Field) Tag() string {
	if f.OmitEmpty {
		return `json:"` + f.Label + `,omitempty"`
	}
	return `json:"` + f.Label + `"`
}

// LoadCore builds the core package of the CUE module rooted at contracts.
func LoadCore(contracts string) (cue.Value, error) {
	dir, err := filepath.Abs(contracts)
	if err != nil {
		return cue.Value{}, err
	}
	inst := load.Instances([]string{"./core"}, &load.Config{Dir: dir})[0]
	if inst.Err != nil {
		return cue.Value{}, fmt.Errorf("wiregen: load %s/core: %w", contracts, inst.Err)
	}
	v := cuecontext.New().BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cue.Value{}, fmt.Errorf("wiregen: build %s/core: %w", contracts, err)
	}
	return v, nil
}

// Derive returns the structs of every mapped definition, hand-written ones included,
// each followed by the inline structs it names.
func Derive(contracts string) ([]*Struct, error) {
	core, err := LoadCore(contracts)
	if err != nil {
		return nil, err
	}
	g := &deriver{core: core, seen: map[string]bool{}, used: map[string]bool{}}
	for _, d := range definitions {
		if err := g.define(d); err != nil {
			return nil, err
		}
	}
	// An entry for a path CUE no longer has would silently do nothing.
	for _, table := range [][]string{keys(typeOverrides), keys(orderOverrides), keys(inline)} {
		for _, path := range table {
			if !g.used[path] {
				return nil, fmt.Errorf("wiregen: the tables name %s, which the contracts do not have", path)
			}
		}
	}
	return g.structs, nil
}

// Generate returns the source of wire_gen.go.
func Generate(contracts string) ([]byte, error) {
	structs, err := Derive(contracts)
	if err != nil {
		return nil, err
	}
	return render(structs)
}

type deriver struct {
	core    cue.Value
	structs []*Struct
	seen    map[string]bool // Go names already derived
	used    map[string]bool // table entries applied
}

func keys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func (g *deriver) define(d definition) error {
	v := g.core.LookupPath(cue.ParsePath(d.cue))
	if !v.Exists() {
		return fmt.Errorf("wiregen: core has no %s", d.cue)
	}
	if v.IncompleteKind() != cue.StructKind {
		if d.handWritten == "" {
			return fmt.Errorf("wiregen: %s is not a struct", d.cue)
		}
		return nil
	}
	s := &Struct{CUE: d.cue, GoName: d.goName, Doc: typeDoc(docOf(v), d.cue, d.goName), HandWritten: d.handWritten}
	return g.derive(s, v)
}

// derive fills s from v, a struct or a disjunction of structs, and appends it.
func (g *deriver) derive(s *Struct, v cue.Value) error {
	g.seen[s.GoName] = true
	g.structs = append(g.structs, s)
	var err error
	if op, _ := v.Expr(); op == cue.OrOp {
		s.Fields, err = g.union(v, s.CUE)
	} else {
		s.Fields, err = g.fields(v, s.CUE)
	}
	if err != nil {
		return err
	}
	s.Fields, err = reorder(s.Fields, s.CUE, g.used)
	if err != nil {
		return err
	}
	for i := range s.Fields {
		s.Fields[i].GoType = pointerIfOmitted(s.Fields[i], g.isStruct)
	}
	return nil
}

// fields are the fields of one struct value, in CUE order. A field is omitempty exactly
// when it is optional (label?): required and regular fields are always written.
func (g *deriver) fields(v cue.Value, path string) ([]Field, error) {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil, fmt.Errorf("wiregen: %s: %w", path, err)
	}
	var out []Field
	for it.Next() {
		sel := it.Selector()
		label := sel.Unquoted()
		fv := it.Value()
		t, err := g.goType(fv, path+"."+label)
		if err != nil {
			return nil, err
		}
		doc := fieldDoc(docOf(fv), label)
		if o := typeOverrides[path+"."+label]; o.doc {
			doc = strings.TrimSpace(doc + " " + o.why)
		}
		out = append(out, Field{
			Label:     label,
			GoName:    goName(label),
			GoType:    t,
			OmitEmpty: sel.ConstraintType() == cue.OptionalConstraint,
			Doc:       doc,
		})
	}
	return out, nil
}

// goType is the Go type of the value at path: an override, a mapped definition, or
// what its CUE kind says.
func (g *deriver) goType(v cue.Value, path string) (string, error) {
	if o, ok := typeOverrides[path]; ok {
		g.used[path] = true
		return o.goType, nil
	}
	if _, p := v.ReferencePath(); len(p.Selectors()) > 0 {
		for _, d := range definitions {
			if d.cue == p.String() {
				return d.goName, nil
			}
		}
		// Any other definition (#ID, #Name, #Hash, #Time, ...) is a constrained scalar.
	}
	switch k := v.IncompleteKind(); k {
	case cue.StringKind:
		return "string", nil
	case cue.BoolKind:
		return "bool", nil
	case cue.IntKind:
		return "int", nil
	case cue.ListKind:
		t, err := g.goType(v.LookupPath(cue.MakePath(cue.AnyIndex)), path+"[]")
		return "[]" + t, err
	case cue.StructKind:
		return g.structType(v, path)
	default:
		return "", fmt.Errorf("wiregen: %s: no Go type for CUE kind %v", path, k)
	}
}

// structType is an inline struct's Go name, or a map for a struct made of a pattern
// constraint ([string]: T) or open to anything ({...}).
func (g *deriver) structType(v cue.Value, path string) (string, error) {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return "", fmt.Errorf("wiregen: %s: %w", path, err)
	}
	if it.Next() {
		n, ok := inline[path]
		if !ok {
			return "", fmt.Errorf("wiregen: %s: inline struct without a Go name", path)
		}
		g.used[path] = true
		if !g.seen[n.goName] {
			if err := g.derive(&Struct{CUE: path, GoName: n.goName, Doc: n.doc}, v); err != nil {
				return "", err
			}
		}
		return n.goName, nil
	}
	pit, err := v.Fields(cue.Patterns(true))
	if err != nil {
		return "", fmt.Errorf("wiregen: %s: %w", path, err)
	}
	elem := v.LookupPath(cue.MakePath(cue.AnyString))
	if pit.Next() && pit.Selector().ConstraintType() == cue.PatternConstraint {
		elem = pit.Value()
	}
	if !elem.Exists() {
		return "", fmt.Errorf("wiregen: %s: a struct with no fields and no pattern", path)
	}
	if elem.IncompleteKind() == cue.TopKind {
		return "map[string]any", nil
	}
	t, err := g.goType(elem, path+"{}")
	if err != nil {
		return "", err
	}
	// A map's struct values are pointers: the engine updates its records in place.
	if g.isStruct(t) {
		t = "*" + t
	}
	return "map[string]" + t, nil
}

// isStruct reports whether the Go name is a derived struct.
func (g *deriver) isStruct(goName string) bool {
	for _, n := range inline {
		if n.goName == goName {
			return true
		}
	}
	for _, d := range definitions {
		if d.goName == goName {
			return g.core.LookupPath(cue.ParsePath(d.cue)).IncompleteKind() == cue.StructKind
		}
	}
	return false
}

// pointerIfOmitted is the field's type, made a pointer when it is an omitted struct:
// encoding/json never omits a struct value.
func pointerIfOmitted(f Field, isStruct func(string) bool) string {
	if f.OmitEmpty && isStruct(f.GoType) {
		return "*" + f.GoType
	}
	return f.GoType
}

// reorder applies orderOverrides to the fields of the struct at path.
func reorder(fields []Field, path string, used map[string]bool) ([]Field, error) {
	for _, f := range slices.Clone(fields) {
		o, ok := orderOverrides[path+"."+f.Label]
		if !ok {
			continue
		}
		used[path+"."+f.Label] = true
		i := indexOf(fields, f.Label)
		fields = slices.Delete(fields, i, i+1)
		j := indexOf(fields, o.after)
		if j < 0 {
			return nil, fmt.Errorf("wiregen: %s: no field %s to put %s after", path, o.after, f.Label)
		}
		fields = slices.Insert(fields, j+1, f)
	}
	return fields, nil
}

func indexOf(fields []Field, label string) int {
	for i, f := range fields {
		if f.Label == label {
			return i
		}
	}
	return -1
}

func docOf(v cue.Value) string {
	var b strings.Builder
	for _, c := range v.Doc() {
		b.WriteString(c.Text())
	}
	return strings.TrimSpace(b.String())
}
