// Package strictjson decodes untrusted JSON into plain Go values, rejecting
// everything that encoding/json v1 would silently accept or repair.
//
// Decode accepts exactly one JSON value (RFC 8259) and returns it as
// map[string]any, []any, string, json.Number, bool or nil. On top of the
// grammar it enforces:
//
//   - size, nesting depth, keys per object and string length limits ([Limits]);
//   - valid UTF-8 everywhere, no byte order mark, no escapes that produce lone
//     UTF-16 surrogates, no raw control characters inside strings;
//   - no duplicate keys in an object, neither exact ("a", "a") nor equal under
//     Unicode case folding as defined by [strings.EqualFold] ("tenant_id",
//     "TENANT_ID"), so that no later consumer can disagree about which of two
//     keys is meant;
//   - numbers that are finite as IEEE 754 doubles (a literal such as 1e400
//     would become infinity and is rejected); the literal is kept verbatim in
//     a json.Number.
//
// Every rejection is an [*Error] carrying a stable reason code and the path of
// the offending value, in the syntax described at [PathString].
//
// The decoder runs in time linear in the input and is safe for concurrent use.
package strictjson

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/handoff-dev/handoff/internal/canary"
)

// Reason codes carried by [Error.Code]. They match the engine's reason codes.
const (
	// CodePayloadTooLarge: the input is longer than Limits.MaxBytes, or a
	// string (value or key) decodes to more than Limits.MaxStringBytes bytes.
	CodePayloadTooLarge = "PAYLOAD_TOO_LARGE"
	// CodeDepthExceeded: objects and arrays nest deeper than Limits.MaxDepth.
	CodeDepthExceeded = "DEPTH_EXCEEDED"
	// CodeInvalidEncoding: the input is not a single well-formed JSON value in
	// valid UTF-8 (this includes empty input, a byte order mark, NUL bytes,
	// lone surrogate escapes, trailing data and numbers out of range).
	CodeInvalidEncoding = "INVALID_ENCODING"
	// CodeDuplicateKey: an object repeats a key, exactly or up to case folding.
	CodeDuplicateKey = "DUPLICATE_KEY"
	// CodeSchemaInvalid: an object has more than Limits.MaxKeys keys.
	CodeSchemaInvalid = "SCHEMA_INVALID"
)

// Error is the error returned by [Decode] for every rejected input.
type Error struct {
	// Code is one of the Code* reason codes.
	Code string
	// Path locates the offending value ("" is the top-level value); see
	// [PathString]. For a duplicate key it is the path of the second key.
	Path string
	// Msg is a human-readable description, often with a byte offset.
	Msg string
}

// Error returns "strictjson: <path>: <msg>", or "strictjson: <msg>" when the
// path is the top-level value.
func (e *Error) Error() string {
	if e.Path == "" {
		return "strictjson: " + e.Msg
	}
	return "strictjson: " + e.Path + ": " + e.Msg
}

// Limits bounds what [Decode] accepts. A zero (or negative) field takes its
// value from [DefaultLimits], so the zero Limits is the default.
type Limits struct {
	// MaxBytes is the largest accepted input, in bytes. Default 1 MiB.
	MaxBytes int
	// MaxDepth is the deepest accepted nesting of objects and arrays: a
	// scalar has depth 0, [] and {} depth 1, [[]] depth 2. Default 32.
	MaxDepth int
	// MaxKeys is the largest number of keys accepted in one object. Default 1024.
	MaxKeys int
	// MaxStringBytes is the longest accepted string (value or key), counted in
	// bytes of its decoded UTF-8 form. Default 256 KiB.
	MaxStringBytes int
	// CaseSensitiveKeys, when true, rejects only exact duplicate keys and
	// accepts keys that differ only in case. Request decoding must leave it
	// false; it exists for re-reading trusted output such as encoding/json's.
	CaseSensitiveKeys bool
}

// DefaultLimits are the limits used for any zero field of a [Limits].
var DefaultLimits = Limits{
	MaxBytes:       1 << 20,
	MaxDepth:       32,
	MaxKeys:        1024,
	MaxStringBytes: 256 << 10,
}

// WithDefaults is l with every zero (or negative) limit at its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = DefaultLimits.MaxKeys
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = DefaultLimits.MaxStringBytes
	}
	return l
}

// Decode decodes data, which must hold exactly one JSON value surrounded by
// optional whitespace, within lim. Objects become map[string]any, arrays
// []any, strings string, numbers json.Number (the literal as written), true
// and false bool, and null nil. Any rejection is an [*Error].
func Decode(data []byte, lim Limits) (any, error) {
	lim = lim.WithDefaults()
	if len(data) > lim.MaxBytes {
		return nil, &Error{Code: CodePayloadTooLarge,
			Msg: fmt.Sprintf("payload is %d bytes, limit is %d", len(data), lim.MaxBytes)}
	}
	if len(data) == 0 {
		return nil, &Error{Code: CodeInvalidEncoding, Msg: "empty input"}
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, &Error{Code: CodeInvalidEncoding, Msg: "byte order mark is not allowed"}
	}
	d := decoder{data: data, lim: lim}
	d.skipSpace()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return nil, d.unexpected("after top-level value")
	}
	return v, nil
}

type decoder struct {
	data  []byte
	pos   int
	lim   Limits
	depth int
	path  []seg // keys and indexes leading to the value being decoded
	buf   []byte
}

// seg is one step of a path: an object key, or an array index when key is
// not set. It avoids boxing every key into an interface while decoding.
type seg struct {
	key     string
	index   int
	isIndex bool
}

func (d *decoder) fail(code, msg string) *Error {
	segs := make([]any, len(d.path))
	for i, s := range d.path {
		if s.isIndex {
			segs[i] = s.index
		} else {
			segs[i] = s.key
		}
	}
	return &Error{Code: code, Path: PathString(segs), Msg: msg}
}

// unexpected reports the byte at d.pos (or the end of input) as a syntax error.
func (d *decoder) unexpected(context string) *Error {
	if d.pos >= len(d.data) {
		return d.fail(CodeInvalidEncoding, "unexpected end of input "+context)
	}
	c := d.data[d.pos]
	var what string
	switch {
	case c == 0:
		what = "NUL byte"
	case c < 0x20:
		what = fmt.Sprintf("control character %#02x", c)
	case c < utf8.RuneSelf:
		what = fmt.Sprintf("character %q", c)
	default:
		r, size := utf8.DecodeRune(d.data[d.pos:])
		if r == utf8.RuneError && size <= 1 {
			what = "invalid UTF-8"
		} else {
			what = fmt.Sprintf("character %q", r)
		}
	}
	return d.fail(CodeInvalidEncoding, fmt.Sprintf("unexpected %s %s at offset %d", what, context, d.pos))
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value starting at d.pos (whitespace already skipped).
func (d *decoder) value() (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.unexpected("where a value was expected")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return nil, d.unexpected("where a value was expected")
	}
}

func (d *decoder) literal(lit string) error {
	for i := 0; i < len(lit); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != lit[i] {
			return d.unexpected("in literal " + lit)
		}
		d.pos++
	}
	return nil
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > d.lim.MaxDepth {
		return d.fail(CodeDepthExceeded, fmt.Sprintf("nesting depth exceeds limit of %d", d.lim.MaxDepth))
	}
	return nil
}

func (d *decoder) object() (any, error) {
	m := make(map[string]any)
	empty, err := d.open('}')
	if err != nil {
		return nil, err
	}
	if empty {
		return m, nil
	}
	var folded map[string]string // case-folded key -> key as first seen
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.unexpected("where an object key was expected")
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.path = append(d.path, seg{key: key})
		if _, dup := m[key]; dup && !canary.AcceptDuplicateKeys {
			return nil, d.fail(CodeDuplicateKey, fmt.Sprintf("duplicate key %s", quote(key)))
		}
		if !d.lim.CaseSensitiveKeys && !canary.AcceptDuplicateKeys {
			if folded == nil {
				folded = make(map[string]string)
			}
			fk := foldKey(key)
			if first, dup := folded[fk]; dup {
				return nil, d.fail(CodeDuplicateKey,
					fmt.Sprintf("key %s duplicates key %s under case folding", quote(key), quote(first)))
			}
			folded[fk] = key
		}
		if len(m) >= d.lim.MaxKeys {
			d.path = d.path[:len(d.path)-1]
			return nil, d.fail(CodeSchemaInvalid, fmt.Sprintf("object has more than %d keys", d.lim.MaxKeys))
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.unexpected("where ':' was expected")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[key] = v
		d.path = d.path[:len(d.path)-1]
		more, err := d.next('}')
		if err != nil {
			return nil, err
		}
		if !more {
			return m, nil
		}
	}
}

func (d *decoder) array() (any, error) {
	a := []any{}
	empty, err := d.open(']')
	if err != nil {
		return nil, err
	}
	if empty {
		return a, nil
	}
	for {
		d.path = append(d.path, seg{index: len(a), isIndex: true})
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		d.path = d.path[:len(d.path)-1]
		a = append(a, v)
		more, err := d.next(']')
		if err != nil {
			return nil, err
		}
		if !more {
			return a, nil
		}
	}
}

// open enters the object or array whose opening byte is at d.pos and reports whether
// end closes it at once.
func (d *decoder) open(end byte) (empty bool, err error) {
	if err := d.enter(); err != nil {
		return false, err
	}
	d.pos++
	d.skipSpace()
	return d.close(end), nil
}

// next reads what follows a member or an element: true after a ',' (another one
// follows), false after end (the object or array is done).
func (d *decoder) next(end byte) (more bool, err error) {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ',' {
		d.pos++
		d.skipSpace()
		return true, nil
	}
	if d.close(end) {
		return false, nil
	}
	return false, d.unexpected("where ',' or '" + string(rune(end)) + "' was expected")
}

// close leaves the object or array if end is at d.pos.
func (d *decoder) close(end byte) bool {
	if d.pos < len(d.data) && d.data[d.pos] == end {
		d.pos++
		d.depth--
		return true
	}
	return false
}

// str decodes the string starting at the '"' at d.pos.
func (d *decoder) str() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	// Fast path: no escapes.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := string(d.data[start:d.pos])
			d.pos++
			return s, d.checkLen(len(s))
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c < utf8.RuneSelf {
			d.pos++
			continue
		}
		if err := d.rune(); err != nil {
			return "", err
		}
	}
	// Slow path: copy what was scanned, then decode escapes.
	b := append(d.buf[:0], d.data[start:d.pos]...)
	for {
		if d.pos >= len(d.data) {
			return "", d.unexpected("in string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			d.buf = b
			return string(b), d.checkLen(len(b))
		case c == '\\':
			var err error
			if b, err = d.escape(b); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", d.unexpected("in string")
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.pos++
		default:
			p := d.pos
			if err := d.rune(); err != nil {
				return "", err
			}
			b = append(b, d.data[p:d.pos]...)
		}
		if len(b) > d.lim.MaxStringBytes {
			return "", d.checkLen(len(b))
		}
	}
}

// rune validates the multi-byte UTF-8 sequence at d.pos and steps over it.
func (d *decoder) rune() error {
	r, size := utf8.DecodeRune(d.data[d.pos:])
	if r == utf8.RuneError && size <= 1 {
		return d.fail(CodeInvalidEncoding, fmt.Sprintf("invalid UTF-8 in string at offset %d", d.pos))
	}
	d.pos += size
	return nil
}

func (d *decoder) checkLen(n int) error {
	if n > d.lim.MaxStringBytes {
		return d.fail(CodePayloadTooLarge, fmt.Sprintf("string exceeds limit of %d bytes", d.lim.MaxStringBytes))
	}
	return nil
}

// escape decodes the escape sequence at d.pos (a backslash) onto b.
func (d *decoder) escape(b []byte) ([]byte, error) {
	at := d.pos
	if d.pos+1 >= len(d.data) {
		d.pos++
		return nil, d.unexpected("in string escape")
	}
	c := d.data[d.pos+1]
	d.pos += 2
	switch c {
	case '"', '\\', '/':
		return append(b, c), nil
	case 'b':
		return append(b, '\b'), nil
	case 'f':
		return append(b, '\f'), nil
	case 'n':
		return append(b, '\n'), nil
	case 'r':
		return append(b, '\r'), nil
	case 't':
		return append(b, '\t'), nil
	case 'u':
		r, ok := d.hex4()
		if !ok {
			return nil, d.fail(CodeInvalidEncoding, fmt.Sprintf("invalid \\u escape at offset %d", at))
		}
		switch {
		case 0xD800 <= r && r < 0xDC00:
			if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
				d.pos += 2
				lo, ok := d.hex4()
				if !ok {
					return nil, d.fail(CodeInvalidEncoding, fmt.Sprintf("invalid \\u escape at offset %d", d.pos-2))
				}
				if 0xDC00 <= lo && lo < 0xE000 {
					return utf8.AppendRune(b, 0x10000+(r-0xD800)<<10+(lo-0xDC00)), nil
				}
			}
			return nil, d.fail(CodeInvalidEncoding, fmt.Sprintf("lone surrogate \\u%04x at offset %d", r, at))
		case 0xDC00 <= r && r < 0xE000:
			return nil, d.fail(CodeInvalidEncoding, fmt.Sprintf("lone surrogate \\u%04x at offset %d", r, at))
		}
		return utf8.AppendRune(b, r), nil
	}
	d.pos = at + 1
	return nil, d.unexpected("in string escape")
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, true
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at d.pos.
func (d *decoder) number() (any, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.pos < len(d.data) && '1' <= d.data[d.pos] && d.data[d.pos] <= '9':
		d.digits()
	default:
		return nil, d.unexpected("in number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return nil, d.unexpected("in number")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, d.unexpected("in number")
		}
	}
	lit := string(d.data[start:d.pos])
	if _, err := strconv.ParseFloat(lit, 64); err != nil {
		// The grammar is checked above, so this is a range error: the
		// literal's magnitude is beyond the largest finite double.
		return nil, d.fail(CodeInvalidEncoding, fmt.Sprintf("number %.32s out of range at offset %d", lit, start))
	}
	return json.Number(lit), nil
}

func (d *decoder) digits() int {
	n := 0
	for d.pos < len(d.data) && '0' <= d.data[d.pos] && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}

// foldKey maps s to a representative of its class under strings.EqualFold:
// two valid UTF-8 strings are EqualFold exactly when their foldKeys are equal.
// Each rune is replaced by the smallest rune of its unicode.SimpleFold orbit.
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		// In ASCII the smallest member of a letter's orbit is its upper case
		// (the other members, such as U+212A KELVIN SIGN for k, are larger).
		return strings.ToUpper(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// PathString formats a path given as segments: a string segment is an object
// key, an int segment an array index. The empty path is "". Keys that are
// identifiers ([A-Za-z_][A-Za-z0-9_]*) are joined with dots, other keys are
// written as JSON strings in brackets, indexes in brackets:
//
//	a.b[2].c
//	a["we ird"][0]
//	["x-y"].z
//
// Segments of any other type are written in brackets with fmt's %v.
func PathString(segs []any) string {
	var b strings.Builder
	for _, s := range segs {
		switch s := s.(type) {
		case string:
			if isIdent(s) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(s)
			} else {
				b.WriteByte('[')
				b.WriteString(quote(s))
				b.WriteByte(']')
			}
		case int:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s))
			b.WriteByte(']')
		default:
			fmt.Fprintf(&b, "[%v]", s)
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// quote writes s as a JSON string, escaping only '"', '\\' and control
// characters, the same way package canonjson does.
func quote(s string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
