package pipeline

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errIndirect says a value is not one the direct decoder is sure to decode as
// encoding/json would (a type mismatch, a key that only matches a field without regard
// to case, a string that is not UTF-8): the caller decodes it through JSON instead,
// errors and all.
var errIndirect = errors.New("decode through JSON")

// decodeDirect decodes a policy result as OPA returns it (map[string]any, []any,
// json.Number, string, bool, nil) into the value dst points at, as encoding/json with
// UseNumber decodes its encoding: unknown keys are ignored, null leaves a value as it
// is and sets maps, slices and pointers to nil. Objects and arrays of type any are
// copied: OPA may return a map of its store's data documents as it holds it, and the
// engine changes decisions (context packages are wrapped).
func decodeDirect(dst any, v any) error {
	rv := reflect.ValueOf(dst).Elem()
	return decoderOf(rv.Type())(rv, v)
}

type decoder func(dst reflect.Value, v any) error

// decoders caches one decoder per type.
var decoders typeFuncs[decoder]

func decoderOf(t reflect.Type) decoder {
	return decoders.get(t, newDecoder, func(built func() decoder) decoder {
		return func(dst reflect.Value, v any) error { return built()(dst, v) }
	})
}

// integerDecoder decodes a JSON number with set, which says whether the number fits.
func integerDecoder(set func(dst reflect.Value, s string) bool) decoder {
	return func(dst reflect.Value, v any) error {
		switch x := v.(type) {
		case nil:
			return nil
		case json.Number:
			// strconv also takes a sign + and leading zeros, which JSON does not.
			if validNumber(string(x)) && set(dst, string(x)) {
				return nil
			}
		}
		return errIndirect
	}
}

func newDecoder(t reflect.Type) decoder {
	if t == numberType {
		return func(reflect.Value, any) error { return errIndirect }
	}
	switch t.Kind() {
	case reflect.String:
		return func(dst reflect.Value, v any) error {
			switch x := v.(type) {
			case nil:
				return nil
			case string:
				if !utf8.ValidString(x) {
					return errIndirect
				}
				dst.SetString(x)
				return nil
			}
			return errIndirect
		}
	case reflect.Bool:
		return func(dst reflect.Value, v any) error {
			switch x := v.(type) {
			case nil:
				return nil
			case bool:
				dst.SetBool(x)
				return nil
			}
			return errIndirect
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return integerDecoder(func(dst reflect.Value, s string) bool {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || dst.OverflowInt(n) {
				return false
			}
			dst.SetInt(n)
			return true
		})
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return integerDecoder(func(dst reflect.Value, s string) bool {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil || dst.OverflowUint(n) {
				return false
			}
			dst.SetUint(n)
			return true
		})
	case reflect.Interface:
		if t.NumMethod() > 0 {
			break
		}
		return func(dst reflect.Value, v any) error {
			c, err := copyJSON(v)
			if err != nil {
				return err
			}
			if c == nil {
				dst.SetZero()
			} else {
				dst.Set(reflect.ValueOf(c))
			}
			return nil
		}
	case reflect.Pointer:
		elem := decoderOf(t.Elem())
		return func(dst reflect.Value, v any) error {
			if v == nil {
				dst.SetZero()
				return nil
			}
			p := reflect.New(t.Elem())
			if err := elem(p.Elem(), v); err != nil {
				return err
			}
			dst.Set(p)
			return nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			break
		}
		elem := decoderOf(t.Elem())
		return func(dst reflect.Value, v any) error {
			switch x := v.(type) {
			case nil:
				dst.SetZero()
				return nil
			case []any:
				s := reflect.MakeSlice(t, len(x), len(x))
				for i, e := range x {
					if err := elem(s.Index(i), e); err != nil {
						return err
					}
				}
				dst.Set(s)
				return nil
			}
			return errIndirect
		}
	case reflect.Map:
		if t.Key() != reflect.TypeFor[string]() {
			break
		}
		elem := decoderOf(t.Elem())
		return func(dst reflect.Value, v any) error {
			switch x := v.(type) {
			case nil:
				dst.SetZero()
				return nil
			case map[string]any:
				if t == objectType {
					c, err := copyObject(x)
					if err != nil {
						return err
					}
					dst.Set(reflect.ValueOf(c))
					return nil
				}
				m := reflect.MakeMapWithSize(t, len(x))
				for k, e := range x {
					if !utf8.ValidString(k) {
						return errIndirect
					}
					ev := reflect.New(t.Elem()).Elem()
					if err := elem(ev, e); err != nil {
						return err
					}
					m.SetMapIndex(reflect.ValueOf(k), ev)
				}
				dst.Set(m)
				return nil
			}
			return errIndirect
		}
	case reflect.Struct:
		return structDecoder(t)
	}
	return func(reflect.Value, any) error { return errIndirect }
}

var objectType = reflect.TypeFor[map[string]any]()

type fieldDecoder struct {
	index int
	dec   decoder
}

func structDecoder(t reflect.Type) decoder {
	fields := map[string]fieldDecoder{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fields[name] = fieldDecoder{index: i, dec: decoderOf(f.Type)}
		names = append(names, name)
	}
	return func(dst reflect.Value, v any) error {
		switch x := v.(type) {
		case nil:
			return nil
		case map[string]any:
			for k, e := range x {
				f, ok := fields[k]
				if !ok {
					// encoding/json also matches a key to a field without regard to case.
					for _, n := range names {
						if strings.EqualFold(n, k) {
							return errIndirect
						}
					}
					// An ignored value is still encoded on the way through JSON.
					if _, err := copyJSON(e); err != nil || !utf8.ValidString(k) {
						return errIndirect
					}
					continue
				}
				if err := f.dec(dst.Field(f.index), e); err != nil {
					return err
				}
			}
			return nil
		}
		return errIndirect
	}
}

func copyObject(m map[string]any) (map[string]any, error) {
	c := make(map[string]any, len(m))
	for k, v := range m {
		if !utf8.ValidString(k) {
			return nil, errIndirect
		}
		x, err := copyJSON(v)
		if err != nil {
			return nil, err
		}
		c[k] = x
	}
	return c, nil
}

// copyJSON copies a JSON value as decoding its encoding would.
func copyJSON(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool:
		return x, nil
	case string:
		if !utf8.ValidString(x) {
			return nil, errIndirect
		}
		return x, nil
	case json.Number:
		if !validNumber(string(x)) {
			return nil, errIndirect
		}
		return x, nil
	case map[string]any:
		return copyObject(x)
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			var err error
			if c[i], err = copyJSON(e); err != nil {
				return nil, err
			}
		}
		return c, nil
	}
	return nil, errIndirect
}

// validNumber is JSON's number grammar, which encoding/json holds a json.Number to.
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for s != "" && isDigit(s[0]) {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		s = s[2:]
		for s != "" && isDigit(s[0]) {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for s != "" && isDigit(s[0]) {
			s = s[1:]
		}
	}
	return s == ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
