package badger

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func TestAppendTooLarge(t *testing.T) {
	payload := func(n int) []byte { return []byte(`"` + strings.Repeat("x", n) + `"`) }
	eachBadger(t, func(t *testing.T, b backend, l *Log) {
		ctx := context.Background()
		create(t, l, "a", "w", 1)
		var many []store.NewRecord
		for range 12 {
			many = append(many, store.NewRecord{Type: "x", Payload: payload(900 << 10)})
		}
		var lots []store.NewRecord
		for range l.maxBatchCount {
			lots = append(lots, store.NewRecord{Type: "x", Payload: []byte("1")})
		}
		tests := []struct {
			name    string
			records []store.NewRecord
			tooBig  bool
		}{
			// More than one transaction holds in memory; on disk the value log
			// takes the records and the tree only their pointers.
			{name: "many medium records", records: many, tooBig: b.memory},
			// More writes than one transaction holds, in any mode.
			{name: "too many records", records: lots, tooBig: true},
			// Over the in-memory value limit; the value log takes it.
			{name: "one 2 MiB record", records: []store.NewRecord{{Type: "x", Payload: payload(2 << 20)}}, tooBig: b.memory},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, before, err := l.State(ctx, "a", "w")
				require.NoError(t, err)
				_, err = l.Append(ctx, store.Append{Tenant: "a", Workflow: "w", ExpectedVersion: 1,
					Records: tt.records, Time: t0})
				if !tt.tooBig {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, store.ErrTooLarge)
				assert.Equal(t, "store: append too large", err.Error(), "no dump of the value")
				_, after, err := l.State(ctx, "a", "w")
				require.NoError(t, err)
				assert.Equal(t, before, after)
			})
		}
		// The store still works.
		_, err := l.Append(ctx, store.Append{Tenant: "a", Workflow: "w", ExpectedVersion: 1,
			Records: []store.NewRecord{rec("x", 2)}, Time: t0})
		require.NoError(t, err)
	})
}
