package store

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

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
	canonical = append(canonical, field(DomainRecord)...)
	canonical = append(canonical, 0, 0, 0, 0, 0, 0, 1, 2) // seq 258
	for _, f := range []string{"2026-11-29T21:00:00.123456789Z", "decision", `{"a":1}`, "sha256:prev", "acme", "wf-1"} {
		canonical = append(canonical, field(f)...)
	}
	sum := sha256.Sum256(canonical)
	want := "sha256:" + hex.EncodeToString(sum[:])

	got := RecordHash(DomainRecord, 258, FormatTime(t0), "decision", []byte(`{"a":1}`), "sha256:prev", "acme", "wf-1")
	assert.Equal(t, want, got)
	assert.Equal(t, "2026-11-29T21:00:00.123456789Z", FormatTime(t0))
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
		h := RecordHash(DomainRecord, 1, v.time, v.typ, []byte(v.payload), v.prev, v.tenant, v.workflow)
		if j, dup := seen[h]; dup {
			t.Errorf("variants %d and %d hash alike", j, i)
		}
		seen[h] = i
	}
	a := RecordHash(DomainRecord, 1, "t", "x", []byte("{}"), "", "te", "")
	b := RecordHash(DomainAudit, 1, "t", "x", []byte("{}"), "", "te", "")
	assert.NotEqual(t, a, b, "domains must separate workflow and audit records")
	assert.NotEqual(t, a, RecordHash(DomainRecord, 2, "t", "x", []byte("{}"), "", "te", ""))
}

var t0 = time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)
