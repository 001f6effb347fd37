package backend_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/backend"
	"github.com/handoff-dev/handoff/store/postgres"
)

// dump is everything a store holds, read through its API.
type dump struct {
	Chains  []store.Chain
	Records map[string][]store.Record
	States  map[string]string
	Keys    map[string][]store.Idempotency
	IDs     map[string]store.Location
	// Summaries are each tenant's, in the order of activity; Unsummarized the workflows
	// without one.
	Summaries    map[string][]store.Summary
	Unsummarized map[string][]string
}

func dumpOf(t *testing.T, l store.Log, ids []string) dump {
	t.Helper()
	ctx := context.Background()
	d := dump{Records: map[string][]store.Record{}, States: map[string]string{}, Keys: map[string][]store.Idempotency{}, IDs: map[string]store.Location{},
		Summaries: map[string][]store.Summary{}, Unsummarized: map[string][]string{}}
	require.NoError(t, l.Chains(ctx, func(c store.Chain) error { d.Chains = append(d.Chains, c); return nil }))
	for _, c := range d.Chains {
		name := c.Tenant + "/" + c.Workflow
		collect := func(r store.Record) error { d.Records[name] = append(d.Records[name], r); return nil }
		if c.Audit {
			require.NoError(t, l.AuditRecords(ctx, c.Tenant, 1, collect))
			continue
		}
		require.NoError(t, l.Records(ctx, c.Tenant, c.Workflow, 1, collect))
		snap, _, err := l.State(ctx, c.Tenant, c.Workflow)
		require.NoError(t, err)
		d.States[name] = string(snap)
	}
	tenants, err := l.Tenants(ctx)
	require.NoError(t, err)
	for _, tenant := range tenants {
		require.NoError(t, l.IdempotencyKeys(ctx, tenant, func(k store.Idempotency) error { d.Keys[tenant] = append(d.Keys[tenant], k); return nil }))
		require.NoError(t, l.Summaries(ctx, tenant, nil, func(s store.Summary) error { d.Summaries[tenant] = append(d.Summaries[tenant], s); return nil }))
		require.NoError(t, l.Unsummarized(ctx, tenant, func(wf string, _ store.Head) error {
			d.Unsummarized[tenant] = append(d.Unsummarized[tenant], wf)
			return nil
		}))
	}
	for _, id := range ids {
		loc, err := l.Find(ctx, id)
		require.NoError(t, err)
		d.IDs[id] = loc
	}
	return d
}

// TestCopyBetweenBackends fills a Badger store, copies it to PostgreSQL and back to
// Badger, and checks that each copy holds the same chains, records (hashes included),
// snapshots, keys and ids, and takes the next append as the original would.
func TestCopyBetweenBackends(t *testing.T) {
	ctx := context.Background()
	src := openDisk(t)
	var ids []string
	for w := range 3 {
		wf := fmt.Sprintf("wf-%d", w)
		for i := range 4 {
			id := fmt.Sprintf("d-%d-%d", w, i)
			ids = append(ids, id)
			standing := "" // the standing record is copied with the head, wherever it is
			if i%2 == 0 {
				standing = "allow"
			}
			var summary []byte // wf-0 keeps none: it is copied unsummarized
			if w > 0 {
				summary = fmt.Appendf(nil, `{"wf":%q,"i":%d}`, wf, i)
			}
			_, err := src.Append(ctx, store.Append{Tenant: "acme", Workflow: wf, Create: i == 0, ExpectedVersion: uint64(i), BumpVersion: true,
				Standing: standing, Summary: summary,
				Records:        []store.NewRecord{rec("request", i), {Type: "decision", Payload: fmt.Appendf(nil, `{"i":%d}`, i), ID: id}},
				State:          fmt.Appendf(nil, `{"v":%d}`, i+1),
				IdempotencyKey: "req-" + id, RequestDigest: "sha256:" + id, Time: t0.Add(time.Duration(w) * time.Second)})
			require.NoError(t, err)
		}
	}
	_, err := src.Audit(ctx, "", store.NewRecord{Type: "rejected", Payload: []byte(`{}`), ID: "d-audit"}, t0)
	require.NoError(t, err)
	ids = append(ids, "d-audit")
	want := dumpOf(t, src, ids)
	require.Len(t, want.Summaries["acme"], 2)
	require.Equal(t, []string{"wf-0"}, want.Unsummarized["acme"])

	pg := openPostgres(t)
	rep, err := store.Copy(ctx, pg, src, nil)
	require.NoError(t, err)
	assert.Equal(t, store.CopyReport{Chains: 4, Records: 25, Keys: 12, IDs: 13}, rep)
	assert.Equal(t, want, dumpOf(t, pg, ids), "PostgreSQL holds what Badger held")

	back := openDisk(t)
	_, err = store.Copy(ctx, back, pg, nil)
	require.NoError(t, err)
	assert.Equal(t, want, dumpOf(t, back, ids), "Badger holds again what it held")

	_, err = store.Copy(ctx, pg, src, nil)
	require.ErrorIs(t, err, store.ErrExists, "a copy into a store that is not empty")

	var heads []store.Head
	for _, l := range []store.Log{src, pg, back} {
		h, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 4, BumpVersion: true,
			Records: []store.NewRecord{rec("request", 9)}, Time: t0})
		require.NoError(t, err)
		heads = append(heads, h)
		_, _, _, err = l.Idempotent(ctx, "acme", "req-d-2-3")
		require.NoError(t, err)
		_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-2", ExpectedVersion: 4, Records: []store.NewRecord{rec("x", 1)},
			IdempotencyKey: "req-d-2-3", RequestDigest: "sha256:d-2-3", Time: t0})
		require.ErrorIs(t, err, store.ErrDuplicate, "a copied key answers a resent request")
	}
	assert.Equal(t, []store.Head{heads[0], heads[0], heads[0]}, heads, "the next record hashes alike on every copy")
	assert.Equal(t, uint64(9), heads[0].Seq)
}

var t0 = time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)

func rec(typ string, n int) store.NewRecord {
	return store.NewRecord{Type: typ, Payload: fmt.Appendf(nil, `{"n":%d}`, n)}
}

// openDisk opens a Badger store in a new directory through Open.
func openDisk(t *testing.T) store.Log {
	t.Helper()
	l, err := backend.Open(context.Background(), store.Options{Dir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// openPostgres opens a PostgreSQL store in a new schema, migrated, through Open.
func openPostgres(t *testing.T) store.Log {
	t.Helper()
	u := pgtest.URL(t)
	_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
	require.NoError(t, err)
	l, err := backend.Open(context.Background(), store.Options{URL: u})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}
