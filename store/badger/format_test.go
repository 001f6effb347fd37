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
