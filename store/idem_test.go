package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdempotencyKeysAreExact records keys that extend one another and checks that each
// is found only by itself: "r-1" never finds the entry of "r-10" (a lookup by prefix or
// range would), in the lookup and in the check inside an append.
func TestIdempotencyKeysAreExact(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, l Log) {
		ctx := context.Background()
		keys := []string{"r-100", "r-10", "r-1", "r-", "r", "r-1\x00", "r-1\x00\x01"}
		for i, k := range keys {
			for _, shorter := range keys[i:] {
				_, _, found, err := l.Idempotent(ctx, "acme", shorter)
				require.NoError(t, err)
				require.False(t, found, "%q found before it was recorded (recorded: %q)", shorter, keys[:i])
			}
			_, err := l.Append(ctx, Append{Tenant: "acme", Workflow: "wf-" + string(rune('a'+i)), Create: true,
				Records: []NewRecord{rec("decision", i)}, IdempotencyKey: k, RequestDigest: "digest of " + k, Time: t0})
			require.NoError(t, err, "append with key %q after %q", k, keys[:i])
		}
		for i, k := range keys {
			digest, answer, found, err := l.Idempotent(ctx, "acme", k)
			require.NoError(t, err)
			require.True(t, found, "%q", k)
			assert.Equal(t, "digest of "+k, digest)
			assert.Equal(t, fmt.Sprintf(`{"n":%d}`, i), string(answer.Payload))
		}
	})
}
