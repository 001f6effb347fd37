package chain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func TestValueCodecs(t *testing.T) {
	r := Record{Seq: 7, Time: "2026-01-01T00:00:00Z", Type: "x", Payload: []byte(`{}`), PrevHash: "p", Hash: "h"}
	got, err := DecodeRecord(r.Encode())
	assert.NoError(t, err)
	assert.Equal(t, r, got)

	h := store.Head{Seq: 3, StateVersion: 2, Hash: "sha256:x"}
	gotH, err := DecodeHead(EncodeHead(h))
	assert.NoError(t, err)
	assert.Equal(t, h, gotH)

	e := IdemEntry{Digest: "d", Workflow: "w", Seq: 7, Hash: "sha256:x"}
	gotE, err := DecodeIdem(e.Encode())
	assert.NoError(t, err)
	assert.Equal(t, e, gotE)

	enc := r.Encode()
	for _, bad := range [][]byte{nil, {0x02}, enc[:len(enc)-1], append(enc, 0)} {
		_, err := DecodeRecord(bad)
		assert.ErrorIs(t, err, ErrCorrupt, "%x", bad)
	}
	huge := append([]byte{ValueFormat}, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
	_, err = DecodeRecord(huge)
	assert.ErrorIs(t, err, ErrCorrupt)
}

// FuzzDecodeValues: the value decoders never panic, and every value they accept is the
// one encoding of what they decoded (so no two byte strings stand for the same record,
// head or idempotency entry).
func FuzzDecodeValues(f *testing.F) {
	r := Record{Seq: 3, Time: store.FormatTime(t0), Type: "decision", Payload: []byte(`{"a":1}`), PrevHash: "sha256:00", Hash: "sha256:11"}
	h := store.Head{Seq: 3, StateVersion: 2, Hash: "sha256:11"}
	e := IdemEntry{Digest: "sha256:22", Workflow: "wf-1", Seq: 3, Hash: "sha256:11"}
	for _, seed := range [][]byte{r.Encode(), EncodeHead(h), e.Encode(), {}, {0x01}, {0x02}, append(r.Encode(), 0)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := DecodeRecord(b); err == nil {
			require.Equal(t, b, r.Encode(), "record")
			_, _ = r.Record()
		}
		if h, err := DecodeHead(b); err == nil {
			require.Equal(t, b, EncodeHead(h), "head")
		}
		if e, err := DecodeIdem(b); err == nil {
			require.Equal(t, b, e.Encode(), "idempotency entry")
		}
	})
}

var t0 = time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)
