// Package canonjson writes the canonical JSON encoding used for hashing and
// storage: the same value always gives the same bytes, and values that are
// equal as JSON (same keys, same strings, numerically equal number literals)
// give the same bytes however they were written.
//
// The encoding follows RFC 8785 (JSON Canonicalization Scheme) with two
// documented differences:
//
//   - Object keys are sorted by the bytes of their UTF-8 encoding, not by
//     UTF-16 code units. The orders differ only between characters above
//     U+FFFF and characters in U+E000..U+FFFF.
//   - A number literal (json.Number) whose exact value is an integer that
//     fits in an int64 is written exactly, as decimal digits, even where a
//     double cannot hold it (9007199254740993 stays 9007199254740993), and so
//     are Go integers of every size up to the int64 range.
//
// Every other number is rounded to the nearest IEEE 754 double and written
// with the ECMAScript Number-to-String algorithm that RFC 8785 prescribes:
// the shortest digits that round-trip, in plain notation from 1e-6 up to 1e21
// and in exponent notation (1e-7, 1.5e+300) outside. So 1.0, 1e0 and 10e-1
// are all written 1, 1e2 is 100, -0 is 0, 0.1 is 0.1, 1e21 is 1e+21 and
// 1e-400 (which rounds to zero) is 0. Go float64 and float32 values are
// numbers of this second kind (a float32 is first read as the shortest decimal
// that identifies it, as encoding/json writes it), and so are uint64 values
// above the int64 range. For every value v that encoding/json can encode,
// Marshal(v) equals Marshal(json.RawMessage(b)) where b is json.Marshal(v)
// (up to invalid UTF-8, which Marshal rejects instead of replacing).
//
// There is no insignificant whitespace. Strings escape only '"', '\\' and
// control characters: \b \f \n \r \t in short form, the others as \u00xx in
// lower-case hex; '<', '>', '&', U+2028, U+2029 and all non-ASCII characters
// are written as they are. Strings and keys must be valid UTF-8.
//
// The functions are safe for concurrent use.
package canonjson

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/handoff-dev/handoff/internal/strictjson"
)

// maxDepth bounds nesting, so that a cyclic []any or map[string]any is an
// error rather than a stack overflow.
const maxDepth = 10000

// Marshal returns the canonical encoding of v.
//
// v is normally a value produced by strictjson.Decode: map[string]any, []any,
// string, json.Number, bool or nil. Marshal also takes float64, float32, all
// int and uint kinds, map[string]string and []string directly (a nil map or
// slice is null, as in encoding/json); any other value (structs, typed maps
// and slices, json.Marshaler, json.RawMessage, ...) is first encoded with
// encoding/json, decoded again with strictjson (exact duplicate keys are an
// error; keys differing only in case are allowed) and then encoded
// canonically. NaN and infinities, invalid json.Number literals, invalid
// UTF-8 and nesting deeper than 10000 levels are errors.
func Marshal(v any) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 256)}
	if err := e.value(v); err != nil {
		return nil, final(err)
	}
	return e.buf, nil
}

// Hash returns "sha256:" followed by the lower-case hex SHA-256 of
// Marshal(v).
func Hash(v any) (string, error) {
	b, err := Marshal(v)
	if err != nil {
		return "", err
	}
	return HashBytes(b), nil
}

// HashBytes returns "sha256:" followed by the lower-case hex SHA-256 of b.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Encoded is a value's canonical encoding, as Marshal returned it: Marshal writes it
// as it is, so a value encoded once (to hash it) is not encoded again where a larger
// value holds it.
type Encoded []byte

type encoder struct {
	buf   []byte
	depth int
}

// encodeError is an error on its way up: the path is collected while
// returning, so that encoding never pays for it.
type encodeError struct {
	rev []any // path segments, innermost first
	err error
}

func (ee *encodeError) Error() string { return ee.err.Error() }
func (ee *encodeError) Unwrap() error { return ee.err }

// at records that err happened inside key or index seg.
func at(err error, seg any) error {
	ee := err.(*encodeError)
	ee.rev = append(ee.rev, seg)
	return ee
}

func (e *encoder) errorf(format string, args ...any) error {
	return &encodeError{err: fmt.Errorf(format, args...)}
}

// final turns an encodeError into the error Marshal returns.
func final(err error) error {
	ee := err.(*encodeError)
	slices.Reverse(ee.rev)
	if p := strictjson.PathString(ee.rev); p != "" {
		return fmt.Errorf("canonjson: %s: %w", p, ee.err)
	}
	return fmt.Errorf("canonjson: %w", ee.err)
}

func (e *encoder) value(v any) error {
	if e.depth > maxDepth {
		return e.errorf("nesting deeper than %d levels (cyclic value?)", maxDepth)
	}
	var err error
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case string:
		return e.string(v)
	case json.Number:
		e.buf, err = appendNumber(e.buf, string(v))
	case float64:
		e.buf, err = appendFloat(e.buf, v)
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return e.errorf("unsupported number %v", v)
		}
		// The shortest decimal that identifies the float32, as encoding/json
		// writes it, read as a number literal.
		e.buf, err = appendNumber(e.buf, strconv.FormatFloat(float64(v), 'g', -1, 32))
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case int8:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case int16:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case uint:
		e.buf, err = appendUint(e.buf, uint64(v))
	case uint8:
		e.buf = strconv.AppendUint(e.buf, uint64(v), 10)
	case uint16:
		e.buf = strconv.AppendUint(e.buf, uint64(v), 10)
	case uint32:
		e.buf = strconv.AppendUint(e.buf, uint64(v), 10)
	case uint64:
		e.buf, err = appendUint(e.buf, v)
	case Encoded:
		e.buf = append(e.buf, v...)
	case map[string]any:
		return writeObject(e, v)
	case map[string]string:
		return writeObject(e, v)
	case []any:
		return writeArray(e, v, e.value)
	case []string:
		return writeArray(e, v, e.string)
	default:
		return e.generic(v)
	}
	if err != nil {
		return &encodeError{err: err}
	}
	return nil
}

// writeObject writes m with its keys sorted by their UTF-8 bytes, and a nil m as null.
func writeObject[V any](e *encoder, m map[string]V) error {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	keys := slices.Sorted(maps.Keys(m))
	e.buf = append(e.buf, '{')
	e.depth++
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.string(k); err != nil {
			return at(err, k)
		}
		e.buf = append(e.buf, ':')
		if err := e.value(m[k]); err != nil {
			return at(err, k)
		}
	}
	e.depth--
	e.buf = append(e.buf, '}')
	return nil
}

// writeArray writes a's elements in order, each with elem, and a nil a as null.
func writeArray[V any](e *encoder, a []V, elem func(V) error) error {
	if a == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	e.buf = append(e.buf, '[')
	e.depth++
	for i, x := range a {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := elem(x); err != nil {
			return at(err, i)
		}
	}
	e.depth--
	e.buf = append(e.buf, ']')
	return nil
}

// generic encodes v with encoding/json, decodes the result strictly and
// writes that canonically.
func (e *encoder) generic(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return e.wrap(err)
	}
	d, err := strictjson.Decode(b, strictjson.Limits{
		MaxBytes:          math.MaxInt,
		MaxDepth:          maxDepth - e.depth + 1,
		MaxKeys:           math.MaxInt,
		MaxStringBytes:    math.MaxInt,
		CaseSensitiveKeys: true,
	})
	if err != nil {
		return e.wrap(err)
	}
	return e.value(d)
}

func (e *encoder) wrap(err error) error {
	return &encodeError{err: err}
}

func (e *encoder) string(s string) error {
	if !utf8.ValidString(s) {
		return e.errorf("invalid UTF-8 in string")
	}
	e.buf = appendString(e.buf, s)
	return nil
}

// appendString appends s as a JSON string with minimal escaping.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendUint(b []byte, u uint64) ([]byte, error) {
	if u <= math.MaxInt64 {
		return strconv.AppendUint(b, u, 10), nil
	}
	// Beyond int64 every number is written as the nearest double; the
	// conversion rounds to nearest, as parsing the literal would.
	return appendFloat(b, float64(u))
}

// appendNumber appends the canonical form of the JSON number literal lit.
func appendNumber(b []byte, lit string) ([]byte, error) {
	neg, intPart, frac, exp, ok := splitNumber(lit)
	if !ok {
		return b, fmt.Errorf("invalid number literal %q", lit)
	}
	// The value is ±digits × 10^exp10, digits without leading or trailing
	// zeros.
	digits := intPart + frac
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	exp10 := exp - int64(len(frac))
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp10++
	}
	if digits == "" {
		return append(b, '0'), nil
	}
	if exp10 >= 0 && int64(len(digits))+exp10 <= 19 {
		var tmp [21]byte
		s := tmp[:0]
		if neg {
			s = append(s, '-')
		}
		s = append(s, digits...)
		for range exp10 {
			s = append(s, '0')
		}
		if n, err := strconv.ParseInt(string(s), 10, 64); err == nil {
			return strconv.AppendInt(b, n, 10), nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return b, fmt.Errorf("number %.32q out of range", lit)
	}
	return appendFloat(b, f)
}

// splitNumber checks lit against the JSON number grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and splits it. The exponent
// saturates at ±2^40, far beyond any double.
func splitNumber(lit string) (neg bool, intPart, frac string, exp int64, ok bool) {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		neg = true
		i++
	}
	start := i
	switch {
	case i < len(lit) && lit[i] == '0':
		i++
	case i < len(lit) && '1' <= lit[i] && lit[i] <= '9':
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
	default:
		return
	}
	intPart = lit[start:i]
	if i < len(lit) && lit[i] == '.' {
		i++
		start = i
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
		if i == start {
			return
		}
		frac = lit[start:i]
	}
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		start = i
		for i < len(lit) && isDigit(lit[i]) {
			if exp < 1<<40 {
				exp = exp*10 + int64(lit[i]-'0')
			}
			i++
		}
		if i == start {
			return
		}
		if eneg {
			exp = -exp
		}
	}
	return neg, intPart, frac, exp, i == len(lit)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// appendFloat appends f as the ECMAScript Number-to-String algorithm writes
// it.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("unsupported number %v", f)
	}
	if f == 0 {
		return append(b, '0'), nil // also for -0
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// Shortest round-trip digits d1.d2d3...e±x; n is the position of the
	// decimal point relative to the digits (value = 0.digits × 10^n).
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	ePos := slices.Index(s, 'e')
	x, _ := strconv.Atoi(string(s[ePos+1:]))
	digits := make([]byte, 0, 17)
	digits = append(digits, s[0])
	if ePos > 1 {
		digits = append(digits, s[2:ePos]...)
	}
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b, nil
}
