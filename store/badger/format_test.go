package badger

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// legacyEntry is an idempotency key as an earlier version wrote it: a copy of its answer.
func legacyEntry(digest, response, workflow string) []byte {
	b := []byte{chain.ValueFormat}
	b = chain.AppendField(b, []byte(digest))
	b = chain.AppendField(b, []byte(response))
	return chain.AppendField(b, []byte(workflow))
}

func TestUpgradeBindsTheKeysOfAnEarlierFormat(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	assert.False(t, l.LegacyIdempotency(), "a new store is current")
	create(t, l, "acme", "wf-1", 3)
	// Make it what an earlier version wrote: keys holding their answers, no format mark.
	set(t, l, map[string][]byte{
		string(idemKey("acme", "req-2")):    legacyEntry("d2", `{"n":2}`, "wf-1"),
		string(idemKey("acme", "req-3")):    legacyEntry("d3", `{"n":3}`, "wf-1"),
		string(idemKey("acme", "req-lost")): legacyEntry("dx", `{"n":99}`, "wf-1"),
		formatKey:                           nil,
	})
	require.NoError(t, l.Close())

	l = reopen(t, dir)
	require.True(t, l.LegacyIdempotency())
	_, _, _, err := l.Idempotent(ctx, "acme", "req-2")
	require.ErrorIs(t, err, store.ErrTampered, "an unbound key is never answered")

	var asked []string
	bound, left, err := l.UpgradeIdempotency(ctx, func(tenant, workflow, key string, response []byte) (uint64, error) {
		asked = append(asked, tenant+"/"+workflow+"/"+key+"="+string(response))
		switch string(response) {
		case `{"n":2}`:
			return 2, nil
		case `{"n":3}`:
			return 3, nil
		}
		return 0, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, bound)
	assert.Equal(t, 1, left)
	assert.ElementsMatch(t, []string{`acme/wf-1/req-2={"n":2}`, `acme/wf-1/req-3={"n":3}`, `acme/wf-1/req-lost={"n":99}`}, asked)
	assert.False(t, l.LegacyIdempotency())

	digest, answer, found, err := l.Idempotent(ctx, "acme", "req-2")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "d2", digest)
	assert.Equal(t, uint64(2), answer.Seq)
	_, _, _, err = l.Idempotent(ctx, "acme", "req-lost")
	require.ErrorIs(t, err, store.ErrTampered, "a key whose answer is no record stays unbound")
	require.NoError(t, l.Close())

	l = reopen(t, dir)
	assert.False(t, l.LegacyIdempotency(), "the upgrade is done once")
}

func TestAStoreOfAnUnknownFormatIsRefused(t *testing.T) {
	l, dir := openDisk(t)
	set(t, l, map[string][]byte{formatKey: []byte("9")})
	require.NoError(t, l.Close())
	_, err := Open(context.Background(), store.Options{Dir: dir})
	require.ErrorIs(t, err, store.ErrInvalid)
	assert.Contains(t, err.Error(), `store format "9"`)
}

func TestAnEmptyStoreIsMarkedCurrent(t *testing.T) {
	l, _ := openDisk(t)
	require.NoError(t, l.db.View(func(txn *badger.Txn) error {
		v, found, err := getValue(txn, []byte(formatKey))
		require.True(t, found)
		assert.Equal(t, formatVersion, string(v))
		return err
	}))
}

// TestAStoreWithoutSummariesIsMarkedAtOpen makes a store what the format before summaries
// wrote: at Open its workflows are listed as unsummarized, read-only (by walking them)
// and read-write (marked once), until they are given summaries.
func TestAStoreWithoutSummariesIsMarkedAtOpen(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	create(t, l, "acme", "wf-1", 2)
	create(t, l, "acme", "wf-2", 1)
	create(t, l, "other", "wf-3", 1)
	set(t, l, map[string][]byte{
		string(unsummarizedKey("acme", "wf-1")):  nil,
		string(unsummarizedKey("acme", "wf-2")):  nil,
		string(unsummarizedKey("other", "wf-3")): nil,
		formatKey:                                []byte(formatStanding),
	})
	assert.Empty(t, unsummarizedOf(t, l, "acme"), "unmarked")
	require.NoError(t, l.Close())

	ro, err := Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"wf-1", "wf-2"}, unsummarizedOf(t, ro, "acme"), "read-only, every workflow is looked at")
	require.NoError(t, ro.Close())

	l = reopen(t, dir)
	assert.Equal(t, []string{"wf-1", "wf-2"}, unsummarizedOf(t, l, "acme"))
	assert.Equal(t, []string{"wf-3"}, unsummarizedOf(t, l, "other"))
	require.NoError(t, l.db.View(func(txn *badger.Txn) error {
		v, _, err := getValue(txn, []byte(formatKey))
		assert.Equal(t, formatVersion, string(v), "marked, the store is at the current format")
		return err
	}))
	require.NoError(t, l.SetSummary(ctx, "acme", "wf-1", 2, t0, []byte(`{}`)))
	assert.Equal(t, []string{"wf-2"}, unsummarizedOf(t, l, "acme"))
}

func unsummarizedOf(t *testing.T, l *Log, tenant string) []string {
	t.Helper()
	var out []string
	require.NoError(t, l.Unsummarized(context.Background(), tenant, func(wf string, _ store.Head) error {
		out = append(out, wf)
		return nil
	}))
	return out
}
