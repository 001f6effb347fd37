package store

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRecordHashEncoding pins the canonical encoding documented in the
// package doc: a change here breaks every stored chain.
func TestRecordHashEncoding(t *testing.T) {
	field := func(s string) []byte {
		b := make([]byte, 8, 8+len(s))
		n := uint64(len(s))
		for i := 7; i >= 0; i-- {
			b[i] = byte(n)
			n >>= 8
		}
		return append(b, s...)
	}
	var canonical []byte
	canonical = append(canonical, field(domainRecord)...)
	canonical = append(canonical, 0, 0, 0, 0, 0, 0, 1, 2) // seq 258
	for _, f := range []string{"2026-11-29T21:00:00.123456789Z", "decision", `{"a":1}`, "sha256:prev", "acme", "wf-1"} {
		canonical = append(canonical, field(f)...)
	}
	sum := sha256.Sum256(canonical)
	want := "sha256:" + hex.EncodeToString(sum[:])

	got := recordHash(domainRecord, 258, formatTime(t0), "decision", []byte(`{"a":1}`), "sha256:prev", "acme", "wf-1")
	assert.Equal(t, want, got)
	assert.Equal(t, "2026-11-29T21:00:00.123456789Z", formatTime(t0))
}

// TestRecordHashFieldsDoNotShift moves bytes between neighbouring fields:
// every variant must hash differently.
func TestRecordHashFieldsDoNotShift(t *testing.T) {
	type in struct{ time, typ, payload, prev, tenant, workflow string }
	base := in{"t", "ab", `"c"`, "p", "te", "wf"}
	variants := []in{
		base,
		{"t", "a", `b"c"`, "p", "te", "wf"},
		{"ta", "b", `"c"`, "p", "te", "wf"},
		{"t", "ab", `"c"p`, "", "te", "wf"},
		{"t", "ab", `"c"`, "pt", "e", "wf"},
		{"t", "ab", `"c"`, "p", "tew", "f"},
		{"t", "ab", `"c"`, "p", "", "tewf"},
	}
	seen := map[string]int{}
	for i, v := range variants {
		h := recordHash(domainRecord, 1, v.time, v.typ, []byte(v.payload), v.prev, v.tenant, v.workflow)
		if j, dup := seen[h]; dup {
			t.Errorf("variants %d and %d hash alike", j, i)
		}
		seen[h] = i
	}
	a := recordHash(domainRecord, 1, "t", "x", []byte("{}"), "", "te", "")
	b := recordHash(domainAudit, 1, "t", "x", []byte("{}"), "", "te", "")
	assert.NotEqual(t, a, b, "domains must separate workflow and audit records")
	assert.NotEqual(t, a, recordHash(domainRecord, 2, "t", "x", []byte("{}"), "", "te", ""))
}

func TestValueCodecs(t *testing.T) {
	r := storedRecord{Seq: 7, Time: "2026-01-01T00:00:00Z", Type: "x", Payload: []byte(`{}`), PrevHash: "p", Hash: "h"}
	got, err := decodeRecord(r.encode())
	assert.NoError(t, err)
	assert.Equal(t, r, got)

	h := Head{Seq: 3, StateVersion: 2, Hash: "sha256:x"}
	gotH, err := decodeHead(encodeHead(h))
	assert.NoError(t, err)
	assert.Equal(t, h, gotH)

	e := idemEntry{Digest: "d", Workflow: "w", Seq: 7, Hash: "sha256:x"}
	gotE, err := decodeIdem(e.encode())
	assert.NoError(t, err)
	assert.Equal(t, e, gotE)

	enc := r.encode()
	for _, bad := range [][]byte{nil, {0x02}, enc[:len(enc)-1], append(enc, 0)} {
		_, err := decodeRecord(bad)
		assert.ErrorIs(t, err, errCorrupt, "%x", bad)
	}
	huge := append([]byte{valueFormat}, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
	_, err = decodeRecord(huge)
	assert.ErrorIs(t, err, errCorrupt)
}
