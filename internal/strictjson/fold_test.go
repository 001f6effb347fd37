package strictjson

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestFoldKeyAllRunes checks foldKey against strings.EqualFold for every
// rune: a rune folds to a key that EqualFold accepts, and every member of its
// case-folding orbit folds to the same key. strings.EqualFold compares rune by
// rune, so this covers all strings.
func TestFoldKeyAllRunes(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r)
		key := foldKey(s)
		if !strings.EqualFold(s, key) {
			t.Fatalf("foldKey(%U) = %q, which strings.EqualFold does not match", r, key)
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if got := foldKey(string(f)); got != key {
				t.Fatalf("foldKey(%U) = %q, foldKey(%U) = %q; want equal", f, got, r, key)
			}
		}
	}
}

func FuzzFoldKey(f *testing.F) {
	f.Add("tenant_id", "TENANT_ID")
	f.Add("k", "\u212a")
	f.Add("straße", "STRASSE")
	f.Add("σς", "ΣΣ")
	f.Add("ǅ", "ǆ")
	f.Add("a", "ab")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		require.Equal(t, strings.EqualFold(a, b), foldKey(a) == foldKey(b), "%q %q", a, b)
	})
}
