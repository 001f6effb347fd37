package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func testIdempotencyKeysListsEveryKeyOfTheTenant(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	h := Create(t, l, "acme", "wf-1", 1)
	for i, k := range []string{"b", "a/1", "a"} {
		_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: uint64(1 + i), BumpVersion: true,
			Records: []store.NewRecord{Rec("decision", i)}, IdempotencyKey: k, RequestDigest: "d-" + k, Time: T0})
		require.NoError(t, err)
	}
	_, err := l.Append(ctx, store.Append{Tenant: "other", Workflow: "wf-9", Create: true,
		Records: []store.NewRecord{Rec("start", 1)}, IdempotencyKey: "z", RequestDigest: "dz", Time: T0})
	require.NoError(t, err)
	var got []store.Idempotency
	require.NoError(t, l.IdempotencyKeys(ctx, "acme", func(i store.Idempotency) error {
		got = append(got, i)
		return nil
	}))
	require.Len(t, got, 3)
	assert.Equal(t, []string{"a", "a/1", "b"}, []string{got[0].Key, got[1].Key, got[2].Key})
	assert.Equal(t, store.Idempotency{Key: "b", Digest: "d-b", Workflow: "wf-1", Seq: h.Seq + 1, Hash: got[2].Hash}, got[2])
	var hashes []string
	require.NoError(t, l.Records(ctx, "acme", "wf-1", 0, func(r store.Record) error {
		hashes = append(hashes, r.Hash)
		return nil
	}))
	assert.Equal(t, hashes[h.Seq], got[2].Hash)
}

// testIdempotencyKeysAreExact records keys that extend one another and checks that each
// is found only by itself: "r-1" never finds the entry of "r-10" (a lookup by prefix or
// range would), in the lookup and in the check inside an append.
func testIdempotencyKeysAreExact(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	keys := []string{"r-100", "r-10", "r-1", "r-", "r", "r-1\x00", "r-1\x00\x01"}
	for i, k := range keys {
		for _, shorter := range keys[i:] {
			_, _, found, err := l.Idempotent(ctx, "acme", shorter)
			require.NoError(t, err)
			require.False(t, found, "%q found before it was recorded (recorded: %q)", shorter, keys[:i])
		}
		_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-" + string(rune('a'+i)), Create: true,
			Records: []store.NewRecord{Rec("decision", i)}, IdempotencyKey: k, RequestDigest: "digest of " + k, Time: T0})
		require.NoError(t, err, "append with key %q after %q", k, keys[:i])
	}
	for i, k := range keys {
		digest, answer, found, err := l.Idempotent(ctx, "acme", k)
		require.NoError(t, err)
		require.True(t, found, "%q", k)
		assert.Equal(t, "digest of "+k, digest)
		assert.Equal(t, fmt.Sprintf(`{"n":%d}`, i), string(answer.Payload))
	}
}
