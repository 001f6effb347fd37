package postgres

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store/internal/chain"
)

// FuzzVerifyPostgres replaces one column of one record of a good chain, in SQL, with
// arbitrary bytes: Verify never errs, and reports the chain intact only when the record
// is unchanged. Text columns take the bytes as UTF-8 without NULs, as PostgreSQL stores
// text.
func FuzzVerifyPostgres(f *testing.F) {
	const n = 5
	ctx := context.Background()
	p := openPostgres(f)
	create(f, p, "t1", "wf", n)
	conn, err := pgxConnect(p.url)
	require.NoError(f, err)
	f.Cleanup(func() { _ = conn.Close(context.Background()) })
	tm := pgTamperer{conn: conn}
	orig := make([]chain.Record, n+1)
	for seq := uint64(1); seq <= n; seq++ {
		r, _, err := pgReader(ctx, conn)(("t1"), "wf", seq)
		require.NoError(f, err)
		orig[seq] = r
		f.Add(uint8(seq), uint8(0), r.Payload)
		f.Add(uint8(seq), uint8(1), []byte(r.Type))
		f.Add(uint8(seq), uint8(2), []byte(r.Time))
		f.Add(uint8(seq), uint8(3), []byte(r.PrevHash))
		f.Add(uint8(seq), uint8(4), []byte(r.Hash+"0"))
	}
	f.Fuzz(func(t *testing.T, seqByte, field uint8, v []byte) {
		tm.t = t
		seq := uint64(seqByte)%n + 1
		text := strings.ReplaceAll(strings.ToValidUTF8(string(v), ""), "\x00", "")
		r := orig[seq]
		switch field % 5 {
		case 0:
			r.Payload = v
		case 1:
			r.Type = string(v)
		case 2:
			r.Time = text
		case 3:
			r.PrevHash = text
		case 4:
			r.Hash = text
		}
		tm.Put("t1", "wf", seq, r)
		defer tm.Put("t1", "wf", seq, orig[seq])
		rep, err := p.Verify(ctx, "t1", "wf")
		require.NoError(t, err)
		o := orig[seq]
		unchanged := bytes.Equal(r.Payload, o.Payload) && r.Type == o.Type && r.Time == o.Time && r.PrevHash == o.PrevHash && r.Hash == o.Hash
		if rep.OK && !unchanged {
			t.Fatalf("record %d changed to %+v and the chain still verifies", seq, r)
		}
	})
}
