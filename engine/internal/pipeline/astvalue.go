package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// StateValue is a state as policies read it (input.state): the ast value of its JSON
// encoding, built without encoding it.
func StateValue(s *State) (ast.Value, error) {
	return structValue(reflect.ValueOf(s))
}

// structValue converts a Go value of the wire types into the ast value of its JSON
// encoding, as encoding/json would encode it: json tags, omitempty, nil maps, slices
// and pointers as null, strings not UTF-8 repaired. Values of type any holding
// decoded JSON are converted as they are (numbers json.Number, kept exact), any other
// Go value by its JSON encoding.
func structValue(v reflect.Value) (ast.Value, error) {
	t, err := encoderOf(v.Type())(v)
	if err != nil {
		return nil, err
	}
	return t.Value, nil
}

type encoder func(reflect.Value) (*ast.Term, error)

// encoders caches one encoder per type.
var encoders typeFuncs[encoder]

var numberType = reflect.TypeFor[json.Number]()

func encoderOf(t reflect.Type) encoder {
	return encoders.get(t, newEncoder, func(built func() encoder) encoder {
		return func(v reflect.Value) (*ast.Term, error) { return built()(v) }
	})
}

func newEncoder(t reflect.Type) encoder {
	if t == numberType {
		return func(v reflect.Value) (*ast.Term, error) {
			n, err := ast.InterfaceToValue(json.Number(v.String()))
			if err != nil {
				return nil, err
			}
			return ast.NewTerm(n), nil
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value) (*ast.Term, error) { return stringTerm(v.String()) }
	case reflect.Bool:
		return func(v reflect.Value) (*ast.Term, error) { return ast.InternedTerm(v.Bool()), nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) (*ast.Term, error) { return ast.InternedTerm(v.Int()), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v reflect.Value) (*ast.Term, error) {
			if n := v.Uint(); n <= math.MaxInt64 { // InternedTerm takes a uint64 for an int
				return ast.InternedTerm(int64(n)), nil
			}
			return ast.NumberTerm(json.Number(strconv.FormatUint(v.Uint(), 10))), nil
		}
	case reflect.Interface:
		return func(v reflect.Value) (*ast.Term, error) {
			if v.IsNil() {
				return ast.NullTerm(), nil
			}
			return jsonTerm(v.Interface())
		}
	case reflect.Pointer:
		elem := encoderOf(t.Elem())
		return func(v reflect.Value) (*ast.Term, error) {
			if v.IsNil() {
				return ast.NullTerm(), nil
			}
			return elem(v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			break // encoding/json writes []byte as base64: no wire type holds one
		}
		elem := encoderOf(t.Elem())
		return func(v reflect.Value) (*ast.Term, error) {
			if v.IsNil() {
				return ast.NullTerm(), nil
			}
			terms := make([]*ast.Term, v.Len())
			for i := range terms {
				e, err := elem(v.Index(i))
				if err != nil {
					return nil, err
				}
				terms[i] = e
			}
			return ast.ArrayTerm(terms...), nil
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			break
		}
		elem := encoderOf(t.Elem())
		return func(v reflect.Value) (*ast.Term, error) {
			if v.IsNil() {
				return ast.NullTerm(), nil
			}
			items := make([][2]*ast.Term, 0, v.Len())
			for it := v.MapRange(); it.Next(); {
				k, err := stringTerm(it.Key().String())
				if err != nil {
					return nil, err
				}
				e, err := elem(it.Value())
				if err != nil {
					return nil, err
				}
				items = append(items, [2]*ast.Term{k, e})
			}
			return ast.ObjectTerm(items...), nil
		}
	case reflect.Struct:
		return structEncoder(t)
	}
	return func(reflect.Value) (*ast.Term, error) {
		return nil, fmt.Errorf("ast value: unsupported type %s", t)
	}
}

// fieldPlan is one field of a struct as encoding/json encodes it.
type fieldPlan struct {
	index     int
	name      *ast.Term
	omitEmpty bool
	enc       encoder
}

func structEncoder(t reflect.Type) encoder {
	var fields []fieldPlan
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue // no wire type embeds a struct
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fields = append(fields, fieldPlan{index: i, name: ast.StringTerm(name), omitEmpty: hasOption(opts, "omitempty"), enc: encoderOf(f.Type)})
	}
	return func(v reflect.Value) (*ast.Term, error) {
		items := make([][2]*ast.Term, 0, len(fields))
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			e, err := f.enc(fv)
			if err != nil {
				return nil, err
			}
			items = append(items, [2]*ast.Term{f.name, e})
		}
		return ast.ObjectTerm(items...), nil
	}
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// isEmpty is encoding/json's empty value, which omitempty leaves out.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// stringTerm is a string as its JSON encoding decodes: a string that is not UTF-8 has
// its invalid bytes replaced, as encoding/json replaces them.
func stringTerm(s string) (*ast.Term, error) {
	if utf8.ValidString(s) {
		return ast.InternedTerm(s), nil
	}
	return roundTrip(s)
}

// jsonTerm converts a value of type any. Decoded JSON (map[string]any, []any, string,
// json.Number, bool, nil) is converted as it is; anything else (a Go value a caller
// put in a state) by its JSON encoding, as encoding/json would encode it.
func jsonTerm(x any) (*ast.Term, error) {
	switch v := x.(type) {
	case nil:
		return ast.NullTerm(), nil
	case bool:
		return ast.InternedTerm(v), nil
	case string:
		return stringTerm(v)
	case json.Number:
		if !validNumber(string(v)) {
			return roundTrip(v) // encoding/json's error
		}
		n, err := ast.InterfaceToValue(v)
		if err != nil {
			return nil, err
		}
		return ast.NewTerm(n), nil
	case []any:
		terms := make([]*ast.Term, len(v))
		for i, e := range v {
			t, err := jsonTerm(e)
			if err != nil {
				return nil, err
			}
			terms[i] = t
		}
		return ast.ArrayTerm(terms...), nil
	case map[string]any:
		items := make([][2]*ast.Term, 0, len(v))
		for k, e := range v {
			kt, err := stringTerm(k)
			if err != nil {
				return nil, err
			}
			t, err := jsonTerm(e)
			if err != nil {
				return nil, err
			}
			items = append(items, [2]*ast.Term{kt, t})
		}
		return ast.ObjectTerm(items...), nil
	}
	return roundTrip(x)
}

// roundTrip converts a value by its JSON encoding.
func roundTrip(x any) (*ast.Term, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	y, err := DecodeJSON(b)
	if err != nil {
		return nil, err
	}
	v, err := ast.InterfaceToValue(y)
	if err != nil {
		return nil, err
	}
	return ast.NewTerm(v), nil
}
