package strictjson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/strictjson"
)

func nested(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

func TestDecodeValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"null", `null`, nil},
		{"true", ` true `, true},
		{"false", "\t\r\nfalse\n", false},
		{"integer", `42`, json.Number("42")},
		{"literal kept", `-1.50E+03`, json.Number("-1.50E+03")},
		{"zero", `-0`, json.Number("-0")},
		{"tiny rounds to zero", `1e-400`, json.Number("1e-400")},
		{"largest double", `1.7976931348623157e308`, json.Number("1.7976931348623157e308")},
		{"string", `"héllo"`, "héllo"},
		{"escapes", `"\"\\\/\b\f\n\r\t\u0041\u00e9"`, "\"\\/\b\f\n\r\tAé"},
		{"surrogate pair", `"\ud83d\ude00"`, "😀"},
		{"escaped NUL inside string", `"a\u0000b"`, "a\x00b"},
		{"empty containers", `{"a":[],"b":{}}`, map[string]any{"a": []any{}, "b": map[string]any{}}},
		{"nested", `{"a":{"b":[1,"x",{"c":null}]}}`, map[string]any{
			"a": map[string]any{"b": []any{json.Number("1"), "x", map[string]any{"c": nil}}},
		}},
		{"different keys", `{"a":1,"b":2,"ab":3,"":4}`, map[string]any{
			"a": json.Number("1"), "b": json.Number("2"), "ab": json.Number("3"), "": json.Number("4"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictjson.Decode([]byte(tt.in), strictjson.DefaultLimits)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	small := strictjson.Limits{MaxBytes: 64, MaxDepth: 3, MaxKeys: 2, MaxStringBytes: 4}
	tests := []struct {
		name     string
		in       string
		lim      strictjson.Limits
		wantCode string
		wantPath string
	}{
		// PAYLOAD_TOO_LARGE
		{"payload over MaxBytes", `[` + strings.Repeat(`1,`, 40) + `1]`, small, "PAYLOAD_TOO_LARGE", ""},
		{"over MaxBytes even if invalid", strings.Repeat("\xff", 65), small, "PAYLOAD_TOO_LARGE", ""},
		{"string over MaxStringBytes", `{"a":"abcde"}`, small, "PAYLOAD_TOO_LARGE", "a"},
		{"escaped string over MaxStringBytes", `{"a":["\u0041\u0041\u0041\u0041\u0041"]}`, small, "PAYLOAD_TOO_LARGE", "a[0]"},
		{"key over MaxStringBytes", `{"abcde":1}`, small, "PAYLOAD_TOO_LARGE", ""},
		{"string counts UTF-8 bytes", `"ééé"`, small, "PAYLOAD_TOO_LARGE", ""},

		// DEPTH_EXCEEDED
		{"arrays one over default depth", nested("[", "]", 33), strictjson.Limits{}, "DEPTH_EXCEEDED", strings.Repeat("[0]", 32)},
		{"objects one over depth", `{"a":{"b":{"c":{}}}}`, small, "DEPTH_EXCEEDED", "a.b.c"},
		{"mixed one over depth", `[{"a":[[]]}]`, small, "DEPTH_EXCEEDED", "[0].a[0]"},

		// INVALID_ENCODING
		{"empty input", ``, small, "INVALID_ENCODING", ""},
		{"only whitespace", " \n\t", small, "INVALID_ENCODING", ""},
		{"byte order mark", "\xef\xbb\xbf{}", small, "INVALID_ENCODING", ""},
		{"NUL before value", "\x00{}", small, "INVALID_ENCODING", ""},
		{"NUL after value", "{}\x00", small, "INVALID_ENCODING", ""},
		{"NUL between tokens", `{"a":` + "\x00" + `1}`, small, "INVALID_ENCODING", "a"},
		{"raw NUL inside string", "[\"a\x00\"]", small, "INVALID_ENCODING", "[0]"},
		{"raw control char inside string", "[\"a\tb\"]", small, "INVALID_ENCODING", "[0]"},
		{"invalid UTF-8 inside string", "{\"a\":\"\xff\"}", small, "INVALID_ENCODING", "a"},
		{"truncated UTF-8 inside string", "{\"a\":\"\xc3\"}", small, "INVALID_ENCODING", "a"},
		{"overlong UTF-8 inside string", "[\"\xc0\xaf\"]", small, "INVALID_ENCODING", "[0]"},
		{"UTF-8 encoded surrogate", "[\"\xed\xa0\x80\"]", small, "INVALID_ENCODING", "[0]"},
		{"invalid UTF-8 in key", "{\"\xfe\":1}", small, "INVALID_ENCODING", ""},
		{"invalid UTF-8 outside string", "[\xff]", small, "INVALID_ENCODING", "[0]"},
		{"lone high surrogate", `["\ud800"]`, small, "INVALID_ENCODING", "[0]"},
		{"lone low surrogate", `["\udc00"]`, small, "INVALID_ENCODING", "[0]"},
		{"high surrogate then letter", `["\ud800\u0041"]`, small, "INVALID_ENCODING", "[0]"},
		{"high surrogate then text", `["\ud800x"]`, small, "INVALID_ENCODING", "[0]"},
		{"two high surrogates", `["\ud800\ud800"]`, small, "INVALID_ENCODING", "[0]"},
		{"lone surrogate in key", `{"\udfff":1}`, small, "INVALID_ENCODING", ""},
		{"bad escape", `["\x"]`, small, "INVALID_ENCODING", "[0]"},
		{"short unicode escape", `["\u12"]`, small, "INVALID_ENCODING", "[0]"},
		{"unterminated string", `["abc`, small, "INVALID_ENCODING", "[0]"},
		{"trailing data", `{} {}`, small, "INVALID_ENCODING", ""},
		{"two numbers", `1 2`, small, "INVALID_ENCODING", ""},
		{"trailing comma in array", `[1,]`, small, "INVALID_ENCODING", "[1]"},
		{"trailing comma in object", `{"a":1,}`, small, "INVALID_ENCODING", ""},
		{"unquoted key", `{a:1}`, small, "INVALID_ENCODING", ""},
		{"single quotes", `['a']`, small, "INVALID_ENCODING", "[0]"},
		{"comment", `[1]//`, small, "INVALID_ENCODING", ""},
		{"missing colon", `{"a" 1}`, small, "INVALID_ENCODING", "a"},
		{"truncated object", `{"a":1`, small, "INVALID_ENCODING", ""},
		{"truncated literal", `tru`, small, "INVALID_ENCODING", ""},
		{"capitalised literal", `True`, small, "INVALID_ENCODING", ""},
		{"NaN", `NaN`, small, "INVALID_ENCODING", ""},
		{"Infinity", `[Infinity]`, small, "INVALID_ENCODING", "[0]"},
		{"minus Infinity", `-Infinity`, small, "INVALID_ENCODING", ""},
		{"overflows to infinity", `{"a":1e400}`, small, "INVALID_ENCODING", "a"},
		{"overflows to minus infinity", `-1.8e308`, small, "INVALID_ENCODING", ""},
		{"leading zero", `01`, small, "INVALID_ENCODING", ""},
		{"leading plus", `+1`, small, "INVALID_ENCODING", ""},
		{"bare fraction", `.5`, small, "INVALID_ENCODING", ""},
		{"empty fraction", `1.`, small, "INVALID_ENCODING", ""},
		{"empty exponent", `1e+`, small, "INVALID_ENCODING", ""},
		{"hex number", `0x10`, small, "INVALID_ENCODING", ""},
		{"lone minus", `-`, small, "INVALID_ENCODING", ""},

		// DUPLICATE_KEY
		{"exact duplicate", `{"a":1,"a":2}`, small, "DUPLICATE_KEY", "a"},
		{"duplicate via escape", `{"a":1,"\u0061":2}`, small, "DUPLICATE_KEY", "a"},
		{"case variant", `{"tenant_id":"a","TENANT_ID":"b"}`, strictjson.DefaultLimits, "DUPLICATE_KEY", "TENANT_ID"},
		{"mixed case variant", `{"Tenant_Id":"a","tenant_ID":"b"}`, strictjson.DefaultLimits, "DUPLICATE_KEY", "tenant_ID"},
		{"kelvin sign folds to k", `{"x":{"k":1,"\u212a":2}}`, small, "DUPLICATE_KEY", `x["` + "\u212a" + `"]`},
		{"long s folds to s", `{"s":1,"ſ":2}`, small, "DUPLICATE_KEY", `["ſ"]`},
		{"greek sigma forms", `{"σ":1,"ς":2}`, small, "DUPLICATE_KEY", `["ς"]`},
		{"nested duplicate in array", `[0,{"a":1,"A":2}]`, small, "DUPLICATE_KEY", "[1].A"},
		{"weird key path", `{"we ird":1,"WE IRD":2}`, strictjson.DefaultLimits, "DUPLICATE_KEY", `["WE IRD"]`},

		// SCHEMA_INVALID
		{"too many keys", `{"a":1,"b":2,"c":3}`, small, "SCHEMA_INVALID", ""},
		{"too many keys nested", `{"o":{"a":1,"b":2,"c":3}}`, small, "SCHEMA_INVALID", "o"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictjson.Decode([]byte(tt.in), tt.lim)
			require.Error(t, err, "decoded %#v", got)
			assert.Nil(t, got)
			var se *strictjson.Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.wantCode, se.Code, "code; error: %v", err)
			assert.Equal(t, tt.wantPath, se.Path, "path; error: %v", err)
			assert.NotEmpty(t, se.Msg)
		})
	}
}

func TestDecodeAtLimits(t *testing.T) {
	t.Run("depth exactly at default limit", func(t *testing.T) {
		_, err := strictjson.Decode([]byte(nested("[", "]", 32)), strictjson.DefaultLimits)
		require.NoError(t, err)
		_, err = strictjson.Decode([]byte(strings.Repeat(`{"a":`, 31)+"{}"+strings.Repeat("}", 31)), strictjson.DefaultLimits)
		require.NoError(t, err)
	})
	t.Run("depth one over default limit", func(t *testing.T) {
		_, err := strictjson.Decode([]byte(strings.Repeat(`{"a":`, 32)+"{}"+strings.Repeat("}", 32)), strictjson.DefaultLimits)
		var se *strictjson.Error
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "DEPTH_EXCEEDED", se.Code)
		assert.Equal(t, strings.TrimSuffix(strings.Repeat("a.", 32), "."), se.Path)
	})
	t.Run("custom depth", func(t *testing.T) {
		lim := strictjson.Limits{MaxDepth: 2}
		_, err := strictjson.Decode([]byte(`[[1]]`), lim)
		require.NoError(t, err)
		_, err = strictjson.Decode([]byte(`[[[1]]]`), lim)
		require.Error(t, err)
		_, err = strictjson.Decode([]byte(`"scalar has depth 0"`), strictjson.Limits{MaxDepth: 1})
		require.NoError(t, err)
	})
	t.Run("bytes", func(t *testing.T) {
		in := []byte(`"1234567"`)
		_, err := strictjson.Decode(in, strictjson.Limits{MaxBytes: len(in)})
		require.NoError(t, err)
		_, err = strictjson.Decode(in, strictjson.Limits{MaxBytes: len(in) - 1})
		require.Error(t, err)
	})
	t.Run("default bytes", func(t *testing.T) {
		in := []byte(`"` + strings.Repeat("a", 1<<20-2) + `"`)
		_, err := strictjson.Decode(in, strictjson.Limits{MaxStringBytes: 1 << 20})
		require.NoError(t, err)
		_, err = strictjson.Decode(append(in, ' '), strictjson.Limits{MaxStringBytes: 1 << 20})
		require.Error(t, err)
	})
	t.Run("string bytes", func(t *testing.T) {
		_, err := strictjson.Decode([]byte(`["abcd","\u00e9\u00e9",{"wxyz":"é\n"}]`), strictjson.Limits{MaxStringBytes: 4})
		require.NoError(t, err)
	})
	t.Run("default string bytes", func(t *testing.T) {
		s := strings.Repeat("x", 256<<10)
		_, err := strictjson.Decode([]byte(`"`+s+`"`), strictjson.Limits{})
		require.NoError(t, err)
		_, err = strictjson.Decode([]byte(`"`+s+`x"`), strictjson.Limits{})
		var se *strictjson.Error
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "PAYLOAD_TOO_LARGE", se.Code)
	})
	t.Run("keys", func(t *testing.T) {
		lim := strictjson.Limits{MaxKeys: 3}
		_, err := strictjson.Decode([]byte(`{"a":1,"b":2,"c":{"a":1,"b":2,"c":3}}`), lim)
		require.NoError(t, err)
	})
	t.Run("default keys", func(t *testing.T) {
		obj := func(n int) []byte {
			var b strings.Builder
			b.WriteByte('{')
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"k%d":%d`, i, i)
			}
			b.WriteByte('}')
			return []byte(b.String())
		}
		_, err := strictjson.Decode(obj(1024), strictjson.DefaultLimits)
		require.NoError(t, err)
		_, err = strictjson.Decode(obj(1025), strictjson.DefaultLimits)
		var se *strictjson.Error
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "SCHEMA_INVALID", se.Code)
	})
}

func TestDefaultLimits(t *testing.T) {
	assert.Equal(t, strictjson.Limits{
		MaxBytes:       1 << 20,
		MaxDepth:       32,
		MaxKeys:        1024,
		MaxStringBytes: 256 << 10,
	}, strictjson.DefaultLimits)
}

func TestCaseSensitiveKeys(t *testing.T) {
	lim := strictjson.Limits{CaseSensitiveKeys: true}
	got, err := strictjson.Decode([]byte(`{"tenant_id":"a","TENANT_ID":"b"}`), lim)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"tenant_id": "a", "TENANT_ID": "b"}, got)

	_, err = strictjson.Decode([]byte(`{"a":1,"a":2}`), lim)
	var se *strictjson.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "DUPLICATE_KEY", se.Code)
}

func TestErrorString(t *testing.T) {
	_, err := strictjson.Decode([]byte(`{"tenant_id":"a","TENANT_ID":"b"}`), strictjson.DefaultLimits)
	require.EqualError(t, err, `strictjson: TENANT_ID: key "TENANT_ID" duplicates key "tenant_id" under case folding`)

	_, err = strictjson.Decode(nil, strictjson.DefaultLimits)
	require.EqualError(t, err, `strictjson: empty input`)

	err = &strictjson.Error{Code: "X", Path: `a["b c"][1]`, Msg: "bad"}
	assert.Equal(t, `strictjson: a["b c"][1]: bad`, err.Error())

	wrapped := fmt.Errorf("decode request: %w", err)
	var se *strictjson.Error
	require.True(t, errors.As(wrapped, &se))
	assert.Equal(t, "X", se.Code)
}

func TestPathString(t *testing.T) {
	tests := []struct {
		segs []any
		want string
	}{
		{nil, ""},
		{[]any{"a"}, "a"},
		{[]any{2}, "[2]"},
		{[]any{"a", "b", 2, "c"}, "a.b[2].c"},
		{[]any{"a", "we ird"}, `a["we ird"]`},
		{[]any{"we ird", "x"}, `["we ird"].x`},
		{[]any{"", 0}, `[""][0]`},
		{[]any{"_x1", "1x", "a-b", "a.b"}, `_x1["1x"]["a-b"]["a.b"]`},
		{[]any{`q"uote`, "new\nline", "é"}, `["q\"uote"]["new\nline"]["é"]`},
		{[]any{"a", int64(3)}, "a[3]"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, strictjson.PathString(tt.segs), "%#v", tt.segs)
	}
}

// TestLinear checks that large inputs near the limits decode quickly; a
// quadratic decoder would take minutes on these.
func TestLinear(t *testing.T) {
	lim := strictjson.Limits{MaxBytes: 8 << 20, MaxKeys: 1 << 20, MaxStringBytes: 8 << 20}
	var b strings.Builder
	b.WriteByte('{')
	for i := range 200000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"Key_%d":[%d]`, i, i)
	}
	b.WriteByte('}')
	got, err := strictjson.Decode([]byte(b.String()), lim)
	require.NoError(t, err)
	assert.Len(t, got, 200000)

	arr := "[" + strings.Repeat(`"\u00e9x",`, 500000) + "1]"
	got, err = strictjson.Decode([]byte(arr), lim)
	require.NoError(t, err)
	assert.Len(t, got, 500001)

	esc := `"` + strings.Repeat(`\n`, 2<<20) + `"`
	got, err = strictjson.Decode([]byte(esc), lim)
	require.NoError(t, err)
	assert.Len(t, got, 2<<20)
}

func ExampleDecode() {
	_, err := strictjson.Decode([]byte(`{"tenant_id":"a","TENANT_ID":"b"}`), strictjson.DefaultLimits)
	var se *strictjson.Error
	if errors.As(err, &se) {
		fmt.Println(se.Code, se.Path)
	}
	v, _ := strictjson.Decode([]byte(`{"n": 1.50, "tags": ["a"]}`), strictjson.DefaultLimits)
	fmt.Printf("%#v\n", v.(map[string]any)["n"])
	// Output:
	// DUPLICATE_KEY TENANT_ID
	// "1.50"
}

func BenchmarkDecode(b *testing.B) {
	in := []byte(`{"request_id":"r-1","kind":"handoff","tenant_id":"t1","workflow_id":"w-1",
	"trace_id":"tr-1","actor":{"type":"agent","id":"research_agent"},"source_agent":"research_agent",
	"target_agent":"validator","task_type":"research","input_artifacts":[{"id":"a1","type":"BRIEF",
	"version":1,"hash":"sha256:00"}],"output":{"type":"RESEARCH_BRIEF","content":{"claims":[
	{"text":"Market grows 12% a year","sources":["https://example.com/r"]}],"summary":"ok \u00e9\n"}},
	"assumptions":["none"],"limitations":[],"confidence_score":0.82,"requires_validation":true}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := strictjson.Decode(in, strictjson.DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}
