package strictjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/internal/strictjson"
)

// fuzzLimits are small enough for the fuzzer to reach every limit.
var fuzzLimits = strictjson.Limits{MaxBytes: 1 << 16, MaxDepth: 8, MaxKeys: 16, MaxStringBytes: 64}

var codes = map[string]bool{
	strictjson.CodePayloadTooLarge: true,
	strictjson.CodeDepthExceeded:   true,
	strictjson.CodeInvalidEncoding: true,
	strictjson.CodeDuplicateKey:    true,
	strictjson.CodeSchemaInvalid:   true,
}

// FuzzDecode checks that Decode never panics, that every rejection is a
// well-formed *Error, and that every accepted input is valid JSON that
// encoding/json reads the same way, whose canonical encoding decodes again to
// an equal value and is a fixed point of canonicalisation.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		// accepted
		`null`, `true`, `false`, `0`, `-0.0e-0`, `1.50`, `1e2`, `123456789012345678901234567890`,
		`9007199254740993`, `1e-400`, `"a\u0000b\ud83d\ude00\n"`, `"héllo"`,
		`{"a":{"b":[1,"x",{"c":null}]},"":[],"we ird":{}}`,
		`{"request_id":"r-1","kind":"handoff","tenant_id":"t1","output":{"content":{"claims":[{"sources":[]}]}}}`,
		// PAYLOAD_TOO_LARGE
		`"` + strings.Repeat("x", 65) + `"`, `{"` + strings.Repeat("k", 65) + `":1}`,
		`"` + strings.Repeat(`\u00e9`, 33) + `"`, `[` + strings.Repeat(`1,`, 1<<15) + `1]`,
		// DEPTH_EXCEEDED (limit 8: the first is accepted, the others are one over)
		strings.Repeat("[", 8) + strings.Repeat("]", 8), strings.Repeat("[", 9) + strings.Repeat("]", 9),
		strings.Repeat(`{"a":`, 8) + "{}" + strings.Repeat("}", 8),
		// INVALID_ENCODING
		``, ` `, "\xef\xbb\xbf{}", "\x00", "[\"\x00\"]", "{\"a\":\"\xff\"}", "[\"\xed\xa0\x80\"]",
		`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\x"`, `"\u12"`, `["abc`, `{} {}`, `1 2`, `[1,]`,
		`{"a":1,}`, `{a:1}`, `NaN`, `Infinity`, `-Infinity`, `1e400`, `01`, `+1`, `.5`, `1.`, `1e+`,
		`tru`, `/* */ 1`,
		// DUPLICATE_KEY
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"tenant_id":"a","TENANT_ID":"b"}`, `{"k":1,"\u212a":2}`,
		`{"s":1,"ſ":2}`, `{"σ":1,"ς":2}`, `[0,{"a":1,"A":2}]`,
		// SCHEMA_INVALID
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// The scenario files of the shipped packs, when present.
	files, _ := filepath.Glob("../../policies_test/handoff/*/scenarios/*.json")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) <= fuzzLimits.MaxBytes {
			f.Add(b)
		}
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := strictjson.Decode(data, fuzzLimits)
		if err != nil {
			require.Nil(t, v)
			var se *strictjson.Error
			require.True(t, errors.As(err, &se), "error of type %T: %v", err, err)
			require.True(t, codes[se.Code], "unknown code %q", se.Code)
			require.NotEmpty(t, se.Msg)
			require.True(t, strings.HasPrefix(err.Error(), "strictjson: "))
			return
		}

		// encoding/json agrees that the input is JSON and reads the same value
		// (it differs only on inputs Decode rejects: duplicates, invalid
		// UTF-8, lone surrogates).
		require.True(t, json.Valid(data), "accepted input that encoding/json rejects")
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var std any
		require.NoError(t, dec.Decode(&std))
		require.Equal(t, std, v)
		checkKeys(t, v)

		canon, err := canonjson.Marshal(v)
		require.NoError(t, err)
		require.True(t, json.Valid(canon), "%s", canon)

		// Canonical numbers can be longer than the literal (1e9 becomes
		// 1000000000), so the size limit is lifted for the second decode.
		again := fuzzLimits
		again.MaxBytes = math.MaxInt
		v2, err := strictjson.Decode(canon, again)
		require.NoError(t, err, "canonical form %s", canon)
		requireEquivalent(t, v, v2)

		canon2, err := canonjson.Marshal(v2)
		require.NoError(t, err)
		require.Equal(t, string(canon), string(canon2), "canonical form is not a fixed point")
	})
}

// checkKeys verifies that no object holds two keys equal under case folding.
func checkKeys(t *testing.T, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k, x := range v {
			for _, k2 := range keys {
				require.False(t, strings.EqualFold(k, k2), "keys %q and %q both accepted", k, k2)
			}
			keys = append(keys, k)
			checkKeys(t, x)
		}
	case []any:
		for _, x := range v {
			checkKeys(t, x)
		}
	}
}

// requireEquivalent compares two decoded values, numbers by the double they
// round to (the canonical form keeps integers in int64 range exactly and
// rounds all other numbers to the nearest double).
func requireEquivalent(t *testing.T, a, b any) {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		require.True(t, ok, "%#v vs %#v", a, b)
		fa, err := strconv.ParseFloat(string(a), 64)
		require.NoError(t, err)
		fb, err := strconv.ParseFloat(string(bn), 64)
		require.NoError(t, err)
		require.True(t, fa == fb, "number %s became %s", a, bn)
		if ia, err := strconv.ParseInt(string(a), 10, 64); err == nil {
			require.Equal(t, strconv.FormatInt(ia, 10), string(bn), "int64 %s must stay exact", a)
		}
	case map[string]any:
		bm, ok := b.(map[string]any)
		require.True(t, ok, "%#v vs %#v", a, b)
		require.Len(t, bm, len(a))
		for k, x := range a {
			y, ok := bm[k]
			require.True(t, ok, "key %q lost", k)
			requireEquivalent(t, x, y)
		}
	case []any:
		ba, ok := b.([]any)
		require.True(t, ok, "%#v vs %#v", a, b)
		require.Len(t, ba, len(a))
		for i := range a {
			requireEquivalent(t, a[i], ba[i])
		}
	default:
		require.True(t, reflect.DeepEqual(a, b), "%#v vs %#v", a, b)
	}
}
