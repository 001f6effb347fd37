package badger

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var componentSamples = []string{
	"", "a", "b", "ab", "a/b", "a\x00", "\x00", "\x00\x00", "a\x00b", "a\x00\x01",
	"a\x00\xff", "a\x01", "a\xff", "\xff", "w/", "a\x00\x01w/b",
}

func TestComponentRoundTrip(t *testing.T) {
	for _, s := range componentSamples {
		enc := appendComponent(nil, s)
		got, rest, ok := readComponent(append(enc, "tail"...))
		require.True(t, ok, "%q", s)
		assert.Equal(t, s, got)
		assert.Equal(t, "tail", string(rest))
	}
	for _, bad := range [][]byte{nil, []byte("a"), []byte("a\x00"), []byte("a\x00\x02")} {
		_, _, ok := readComponent(bad)
		assert.False(t, ok, "%q", bad)
	}
}

// TestComponentPrefixFreeAndOrdered checks the two properties the key
// layout relies on over all pairs of samples.
func TestComponentPrefixFreeAndOrdered(t *testing.T) {
	for _, x := range componentSamples {
		for _, y := range componentSamples {
			ex, ey := appendComponent(nil, x), appendComponent(nil, y)
			if x != y {
				assert.False(t, bytes.HasPrefix(ey, ex), "%q encodes to a prefix of %q", x, y)
			}
			assert.Equal(t, cmpSign(bytes.Compare([]byte(x), []byte(y))), cmpSign(bytes.Compare(ex, ey)),
				"order of %q and %q", x, y)
		}
	}
}

func cmpSign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// TestKeysDistinct builds every key kind for pairs of ids and checks that
// no two keys are equal and no workflow prefix covers another's keys.
func TestKeysDistinct(t *testing.T) {
	var keys [][]byte
	type wf struct{ tenant, workflow string }
	var wfs []wf
	for _, tn := range componentSamples {
		for _, w := range componentSamples {
			wfs = append(wfs, wf{tn, w})
			keys = append(keys, recordKey(tn, w, 1), headKey(tn, w), snapshotKey(tn, w))
		}
		keys = append(keys, idemKey(tn, "k"), auditKey(tn, 1), auditHeadKey(tn), ownerKey(tn))
	}
	sorted := slices.SortedFunc(slices.Values(keys), bytes.Compare)
	for i := 1; i < len(sorted); i++ {
		assert.NotEqual(t, sorted[i-1], sorted[i])
	}
	for _, a := range wfs {
		pa := workflowPrefix(a.tenant, a.workflow)
		for _, b := range wfs {
			if a == b {
				continue
			}
			assert.False(t, bytes.HasPrefix(headKey(b.tenant, b.workflow), pa),
				"head of %q lies under the prefix of %q", b, a)
			assert.False(t, bytes.HasPrefix(recordKey(b.tenant, b.workflow, 1), pa))
		}
	}
}

func TestSeqFromKey(t *testing.T) {
	p := recordsPrefix("t", "w")
	seq, ok := seqFromKey(recordKey("t", "w", 258), p)
	assert.True(t, ok)
	assert.Equal(t, uint64(258), seq)
	_, ok = seqFromKey(append(recordKey("t", "w", 1), 0), p)
	assert.False(t, ok)
	_, ok = seqFromKey(recordKey("t", "v", 1), p)
	assert.False(t, ok)
}

func FuzzComponent(f *testing.F) {
	for _, s := range componentSamples {
		f.Add(s, "b")
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		ex, ey := appendComponent(nil, x), appendComponent(nil, y)
		got, rest, ok := readComponent(ex)
		if !ok || got != x || len(rest) != 0 {
			t.Fatalf("round trip of %q: %q %q %v", x, got, rest, ok)
		}
		if x != y && bytes.HasPrefix(ey, ex) {
			t.Fatalf("%q encodes to a prefix of %q", x, y)
		}
		if cmpSign(bytes.Compare([]byte(x), []byte(y))) != cmpSign(bytes.Compare(ex, ey)) {
			t.Fatalf("order of %q and %q not kept", x, y)
		}
	})
}
