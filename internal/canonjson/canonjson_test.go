package canonjson_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/internal/strictjson"
)

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := canonjson.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := strictjson.Decode([]byte(s), strictjson.DefaultLimits)
	require.NoError(t, err)
	return v
}

func TestKeyOrder(t *testing.T) {
	v := map[string]any{"b": 1, "a": 2, "aa": 3, "A": 4, "é": 5, "z": 6, "": 7, "a\x00": 8, "10": 9, "9": 10}
	assert.Equal(t, `{"":7,"10":9,"9":10,"A":4,"a":2,"a\u0000":8,"aa":3,"b":1,"z":6,"é":5}`, marshal(t, v))

	// Keys are ordered by UTF-8 bytes: U+E000 (EE 80 80) sorts before U+1F600
	// (F0 9F 98 80), where RFC 8785's UTF-16 order would put U+1F600 first.
	v = map[string]any{"\U0001F600": 1, "\uE000": 2, "\u00e9": 3}
	assert.Equal(t, `{"é":3,"`+"\uE000"+`":2,"😀":1}`, marshal(t, v))

	// Nested objects are sorted too, arrays keep their order.
	assert.Equal(t, `{"a":[{"x":1,"y":2},{"x":3}],"b":{"c":{"d":null,"e":true}}}`,
		marshal(t, decode(t, `{ "b" : {"c":{"e":true,"d":null}}, "a":[{"y":2,"x":1},{"x":3}] }`)))
}

func TestStringEscaping(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `""`},
		{"plain", `"plain"`},
		{`quote " backslash \ slash /`, `"quote \" backslash \\ slash /"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x0b\x1f", `"\u0000\u0001\u000b\u001f"`},
		{"\x7f", "\"\x7f\""},
		{"<script>&amp;</script>", `"<script>&amp;</script>"`},
		{"é 😀 \u2028\u2029 \ufeff", "\"é 😀 \u2028\u2029 \ufeff\""},
	}
	for _, tt := range tests {
		got := marshal(t, tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		back := decode(t, got)
		assert.Equal(t, tt.in, back, "round trip of %q", tt.in)
	}
}

func TestNumberNormalization(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"0", "0"},
		{"-0", "0"},
		{"-0.0", "0"},
		{"0e10", "0"},
		{"-0E-7", "0"},
		{"0.000", "0"},
		{"1", "1"},
		{"1.0", "1"},
		{"1.000000", "1"},
		{"10e-1", "1"},
		{"0.1e1", "1"},
		{"1e0", "1"},
		{"1E+0", "1"},
		{"1e2", "100"},
		{"1E2", "100"},
		{"100e-2", "1"},
		{"-12.50e1", "-125"},
		{"123456789", "123456789"},
		{"0.5", "0.5"},
		{"5e-1", "0.5"},
		{"0.1", "0.1"},
		{"1.5", "1.5"},
		{"-2.25", "-2.25"},
		{"0.30000000000000004", "0.30000000000000004"},
		{"3.14159265358979323846264", "3.141592653589793"},
		{"1e-6", "0.000001"},
		{"1e-7", "1e-7"},
		{"-1.5e-7", "-1.5e-7"},
		{"123e-20", "1.23e-18"},
		{"1e20", "100000000000000000000"},
		{"1e21", "1e+21"},
		{"1.5e300", "1.5e+300"},
		{"1e-400", "0"},
		{"-1e-400", "0"},
		{"5e-324", "5e-324"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"},
		// Integers that fit in an int64 are exact, even beyond 2^53.
		{"9007199254740993", "9007199254740993"},
		{"9007199254740993.000", "9007199254740993"},
		{"90071992547409930e-1", "9007199254740993"},
		{"9223372036854775807", "9223372036854775807"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"1152921504606846976", "1152921504606846976"},
		{"1152921504606847000", "1152921504606847000"},
		{"1e18", "1000000000000000000"},
		// Beyond int64 (or not an integer) numbers are the nearest double.
		{"9223372036854775808", "9223372036854776000"},
		{"9223372036854775809", "9223372036854776000"},
		{"-9223372036854775809", "-9223372036854776000"},
		{"-9223372036854776000", "-9223372036854776000"},
		{"18446744073709551615", "18446744073709552000"},
		{"295147905179352825856", "295147905179352830000"},
		{"1152921504606846976.5", "1152921504606847000"},
		{"9007199254740993.5", "9007199254740994"},
		{"123456789012345678901234567890", "1.2345678901234568e+29"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, marshal(t, json.Number(tt.in)), "json.Number(%q)", tt.in)
		// Every input goes through strictjson too and gives the same bytes.
		assert.Equal(t, tt.want, marshal(t, decode(t, tt.in)), "decoded %q", tt.in)
		// The canonical form is a fixed point.
		assert.Equal(t, tt.want, marshal(t, json.Number(tt.want)), "json.Number(%q)", tt.want)
	}
}

// TestES6NumberFormat uses the double test vectors of RFC 8785 appendix B.
func TestES6NumberFormat(t *testing.T) {
	tests := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, tt := range tests {
		f := math.Float64frombits(tt.bits)
		assert.Equal(t, tt.want, marshal(t, f), "%#016x", tt.bits)
	}
}

func TestGoNumbers(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{int(-7), "-7"},
		{int8(-128), "-128"},
		{int16(300), "300"},
		{int32(-1 << 31), "-2147483648"},
		{int64(math.MaxInt64), "9223372036854775807"},
		{int64(math.MinInt64), "-9223372036854775808"},
		{uint(7), "7"},
		{uint8(255), "255"},
		{uint16(65535), "65535"},
		{uint32(math.MaxUint32), "4294967295"},
		{uint64(math.MaxInt64), "9223372036854775807"},
		{uint64(math.MaxUint64), "18446744073709552000"},
		{float64(3), "3"},
		{float64(-0.0), "0"},
		{math.Copysign(0, -1), "0"},
		{float64(1 << 60), "1152921504606847000"},
		{float64(-1 << 63), "-9223372036854776000"},
		{float64(1<<53 + 2), "9007199254740994"},
		{float64(1e21), "1e+21"},
		{0.1, "0.1"},
		{float32(0.1), "0.1"},
		{float32(3), "3"},
		{float32(1e38), "1e+38"},
		{float32(16777217), "16777216"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, marshal(t, tt.in), "%T(%v)", tt.in, tt.in)
	}

	// The same number as Go value and as literal gives the same bytes.
	for i := range 20000 {
		var f float64
		switch i % 3 {
		case 0:
			f = math.Float64frombits(rand.Uint64())
		case 1:
			f = float64(rand.Int64()) // integral, mostly beyond 2^53
		case 2:
			f = rand.NormFloat64() * math.Pow(10, float64(rand.IntN(40)-20))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		fromFloat := marshal(t, f)
		lit := strconv.FormatFloat(f, 'g', -1, 64)
		require.Equal(t, fromFloat, marshal(t, json.Number(lit)), "%v", f)
		std, err := json.Marshal(f)
		require.NoError(t, err)
		require.Equal(t, fromFloat, marshal(t, json.RawMessage(std)), "%v", f)
		require.Equal(t, fromFloat, marshal(t, json.Number(std)), "%v", f)
		back, err := strconv.ParseFloat(fromFloat, 64)
		require.NoError(t, err)
		require.Equal(t, f == 0, back == 0)
		if f != 0 {
			require.Equal(t, f, back, "%s", fromFloat)
		}
		// Integral doubles below 1e21 are written in plain digits.
		if f == math.Trunc(f) && math.Abs(f) < 1e21 {
			require.NotContains(t, fromFloat, "e")
			require.NotContains(t, fromFloat, ".")
		}
	}
}

func TestNestedAndGeneric(t *testing.T) {
	type ref struct {
		ID      string `json:"id"`
		Version int    `json:"version"`
		Hash    string `json:"hash,omitempty"`
	}
	type payload struct {
		Refs  []ref             `json:"refs"`
		Meta  map[string]int    `json:"meta"`
		Raw   json.RawMessage   `json:"raw"`
		Tags  []string          `json:"tags"`
		Names map[string]string `json:"names"`
		Score float64           `json:"score"`
		Ptr   *int              `json:"ptr"`
	}
	v := payload{
		Refs:  []ref{{ID: "b", Version: 2}, {ID: "a", Version: 1, Hash: "sha256:ab"}},
		Meta:  map[string]int{"z": 1, "Z": 2},
		Raw:   json.RawMessage(` { "y" : 1.0 , "x" : [ "<&>" ] } `),
		Tags:  []string{"t2", "t1"},
		Names: map[string]string{"k": "v"},
		Score: 0.5,
	}
	want := `{"meta":{"Z":2,"z":1},"names":{"k":"v"},"ptr":null,"raw":{"x":["<&>"],"y":1},` +
		`"refs":[{"id":"b","version":2},{"hash":"sha256:ab","id":"a","version":1}],"score":0.5,"tags":["t2","t1"]}`
	assert.Equal(t, want, marshal(t, v))
	assert.Equal(t, want, marshal(t, &v))

	// The same document built from plain values and decoded from text.
	plain := map[string]any{
		"tags":  []string{"t2", "t1"},
		"names": map[string]string{"k": "v"},
		"meta":  map[string]any{"Z": uint8(2), "z": json.Number("1.0")},
		"raw":   map[string]any{"x": []any{"<&>"}, "y": float64(1)},
		"refs": []any{
			map[string]any{"id": "b", "version": int64(2)},
			map[string]any{"id": "a", "version": json.Number("1e0"), "hash": "sha256:ab"},
		},
		"score": json.Number("5e-1"),
		"ptr":   nil,
	}
	assert.Equal(t, want, marshal(t, plain))
	caseVariants, err := strictjson.Decode([]byte(`{"tags":["t2","t1"],"score":0.50,"refs":[{"version":2,"id":"b"},
		{"id":"a","hash":"sha256:ab","version":1.000}],"raw":{"y":10E-1,"x":["\u003c\u0026\u003e"]},
		"ptr":null,"names":{"k":"v"},"meta":{"z":1,"Z":2}}`), strictjson.Limits{CaseSensitiveKeys: true})
	require.NoError(t, err)
	assert.Equal(t, want, marshal(t, caseVariants))

	assert.Equal(t, `[]`, marshal(t, []any{}))
	assert.Equal(t, `{}`, marshal(t, map[string]any{}))
	assert.Equal(t, `null`, marshal(t, nil))
	assert.Equal(t, `[true,false,null,"x",[[]]]`, marshal(t, []any{true, false, nil, "x", []any{[]any{}}}))
	assert.Equal(t, `"AQI="`, marshal(t, []byte{1, 2}))
}

// TestMatchesEncodingJSON checks that the direct encoding of Go values
// agrees with canonicalising what encoding/json writes for them.
func TestMatchesEncodingJSON(t *testing.T) {
	type inner struct {
		F float64 `json:"f"`
		U uint64  `json:"u"`
	}
	values := []any{
		nil, true, "s<&>\u2028", 0.1, float64(1 << 60), float32(0.1), -0.0, 1e21, 5e-324,
		int64(math.MinInt64), uint64(math.MaxUint64), json.Number("1.50"),
		[]any(nil), []string(nil), map[string]any(nil), map[string]string(nil),
		[]any{}, map[string]any{}, []string{"a"}, map[string]string{"b": "c", "B": "d"},
		map[string]any{"x": []any{1, 2.5, map[string]any{"y": nil}}, "X": uint8(1)},
		inner{F: 1 << 60, U: math.MaxUint64}, []inner{{F: 0.3}},
		map[string]float64{"a": 1 << 60}, map[string][]int{"a": nil, "b": {1}},
	}
	for _, v := range values {
		std, err := json.Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, marshal(t, json.RawMessage(std)), marshal(t, v), "%T %v", v, v)
	}
	// The same number in a typed map and in a map[string]any.
	assert.Equal(t, marshal(t, map[string]any{"a": float64(1 << 60)}), marshal(t, map[string]float64{"a": 1 << 60}))
	assert.Equal(t, `{"a":null,"b":[1]}`, marshal(t, map[string][]int{"a": nil, "b": {1}}))
}

func TestMarshalErrors(t *testing.T) {
	cyclic := []any{nil}
	cyclic[0] = cyclic
	tests := []struct {
		name    string
		in      any
		wantErr string
	}{
		{"NaN", math.NaN(), "canonjson: unsupported number NaN"},
		{"Inf", map[string]any{"a": math.Inf(1)}, "canonjson: a: unsupported number +Inf"},
		{"float32 Inf", []any{float32(math.Inf(-1))}, "canonjson: [0]: unsupported number -Inf"},
		{"bad number", json.Number("abc"), `canonjson: invalid number literal "abc"`},
		{"NaN number", json.Number("NaN"), `canonjson: invalid number literal "NaN"`},
		{"leading zero", json.Number("01"), `canonjson: invalid number literal "01"`},
		{"empty number", json.Number(""), `canonjson: invalid number literal ""`},
		{"number out of range", json.Number("1e400"), `canonjson: number "1e400" out of range`},
		{"invalid UTF-8 string", []any{"a\xffb"}, "canonjson: [0]: invalid UTF-8 in string"},
		{"invalid UTF-8 key", map[string]any{"\xff": 1}, `canonjson: ["` + "\xff" + `"]: invalid UTF-8 in string`},
		{"cycle", cyclic, "nesting deeper than 10000 levels"},
		{"unsupported type", map[string]any{"c": make(chan int)}, "canonjson: c: json: unsupported type: chan int"},
		{"duplicate key from marshaler", json.RawMessage(`{"a":1,"a":2}`), `canonjson: strictjson: a: duplicate key "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonjson.Marshal(tt.in)
			require.Error(t, err, "got %s", got)
			assert.Contains(t, err.Error(), tt.wantErr)
			_, err = canonjson.Hash(tt.in)
			require.Error(t, err)
		})
	}

	var se *strictjson.Error
	_, err := canonjson.Marshal(json.RawMessage(`{"a":1,"a":2}`))
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "DUPLICATE_KEY", se.Code)
}

func TestHash(t *testing.T) {
	v := map[string]any{
		"request_id": "r-1",
		"kind":       "handoff",
		"output":     map[string]any{"content": map[string]any{"claims": []any{"é", json.Number("1.50")}}},
		"n":          json.Number("1e2"),
		"ok":         true,
		"none":       nil,
	}
	const canonical = `{"kind":"handoff","n":100,"none":null,"ok":true,"output":{"content":{"claims":["é",1.5]}},"request_id":"r-1"}`
	assert.Equal(t, canonical, marshal(t, v))

	const golden = "sha256:e3125686319b5d7efdedbb6a1d1e45085e6c7a23000e6b1bf1b0f2d0fdc4aba2"
	sum := sha256.Sum256([]byte(canonical))
	wantHash := "sha256:" + hex.EncodeToString(sum[:])
	assert.Equal(t, golden, wantHash, "golden hash of the canonical bytes")

	h, err := canonjson.Hash(v)
	require.NoError(t, err)
	assert.Equal(t, golden, h)
	assert.Equal(t, golden, canonjson.HashBytes([]byte(canonical)))

	// The same value written differently hashes the same.
	h2, err := canonjson.Hash(decode(t, `{"request_id":"r-1","ok":true,"none":null,"n":100.0,
		"output":{"content":{"claims":["\u00e9",15e-1]}},"kind":"handoff"}`))
	require.NoError(t, err)
	assert.Equal(t, golden, h2)

	// Repeated hashing (fresh map iteration orders) is stable.
	for range 50 {
		h3, err := canonjson.Hash(v)
		require.NoError(t, err)
		require.Equal(t, golden, h3)
	}

	assert.Equal(t, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", canonjson.HashBytes(nil))
}

func ExampleMarshal() {
	v, _ := strictjson.Decode([]byte(`{"b": 1.0, "a": ["<x>", 1e2, -0]}`), strictjson.DefaultLimits)
	b, _ := canonjson.Marshal(v)
	fmt.Println(string(b))
	// Output: {"a":["<x>",100,0],"b":1}
}

func benchValue() any {
	claims := make([]any, 0, 20)
	for i := range 20 {
		claims = append(claims, map[string]any{
			"text":       strings.Repeat("Market grows 12% a year in the région. ", 3),
			"sources":    []any{fmt.Sprintf("https://example.com/r/%d", i)},
			"confidence": json.Number("0.82"),
			"rank":       json.Number(strconv.Itoa(i)),
		})
	}
	return map[string]any{
		"request_id": "r-1", "kind": "handoff", "tenant_id": "t1", "workflow_id": "w-1",
		"trace_id": "tr-1", "actor": map[string]any{"type": "agent", "id": "research_agent"},
		"source_agent": "research_agent", "target_agent": "validator", "task_type": "research",
		"output": map[string]any{"type": "RESEARCH_BRIEF", "content": map[string]any{
			"claims": claims, "summary": "ok\n\t\"quoted\"",
		}},
		"assumptions": []any{"none"}, "limitations": []any{}, "confidence_score": json.Number("8.2e-1"),
		"requires_validation": true,
	}
}

func BenchmarkMarshal(b *testing.B) {
	v := benchValue()
	out, err := canonjson.Marshal(v)
	require.NoError(b, err)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canonjson.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	v := benchValue()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canonjson.Hash(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalStruct(b *testing.B) {
	type ref struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Version int    `json:"version"`
		Hash    string `json:"hash"`
	}
	v := []ref{{"a1", "BRIEF", 1, "sha256:00"}, {"a2", "PLAN", 3, "sha256:11"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canonjson.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

func TestEncodedIsWrittenAsItIs(t *testing.T) {
	inner := map[string]any{"b": json.Number("1.0"), "a": []any{"x"}}
	enc, err := canonjson.Marshal(inner)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := canonjson.Marshal(map[string]any{"inner": inner, "n": 1})
	if err != nil {
		t.Fatal(err)
	}
	reused, err := canonjson.Marshal(map[string]any{"inner": canonjson.Encoded(enc), "n": 1})
	if err != nil {
		t.Fatal(err)
	}
	if string(whole) != string(reused) {
		t.Fatalf("Encoded changed the encoding: %s != %s", reused, whole)
	}
}
