package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestVerify(t *testing.T) {
	secret := []byte(testSecret)
	body := []byte(`{"id":"whk_1","type":"await_human"}`)
	at := time.Unix(1_780_000_000, 0)
	h := Sign(secret, body, at)
	assert.Regexp(t, `^t=1780000000,v1=[0-9a-f]{64}$`, h)

	assert.NoError(t, Verify(secret, h, body, time.Minute, at.Add(30*time.Second)))
	assert.ErrorIs(t, Verify([]byte("another secret, as long as it is"), h, body, time.Minute, at), ErrBadSignature)
	assert.ErrorIs(t, Verify(secret, h, []byte(`{"id":"whk_2","type":"await_human"}`), time.Minute, at), ErrBadSignature, "another body")
	assert.ErrorIs(t, Verify(secret, h, body, time.Minute, at.Add(2*time.Minute)), ErrStale, "replayed after the window")
	assert.ErrorIs(t, Verify(secret, h, body, time.Minute, at.Add(-2*time.Minute)), ErrStale, "from the future")
	assert.ErrorIs(t, Verify(secret, h, body, 0, at.Add(DefaultTolerance+time.Second)), ErrStale, "the default window")
	assert.NoError(t, Verify(secret, "v1=deadbeef, "+h, body, 0, at), "any v1 may match: a rotated secret")

	// A signature made for another time does not pass under this one's.
	other := Sign(secret, body, at.Add(time.Hour))
	forged := "t=1780000000," + other[len("t=1780003600,"):]
	assert.ErrorIs(t, Verify(secret, forged, body, time.Minute, at), ErrBadSignature)

	for _, bad := range []string{"", "v1=abc", "t=1780000000", "t=x,v1=abc", "garbage"} {
		assert.ErrorIs(t, Verify(secret, bad, body, time.Minute, at), ErrNoSignature, bad)
	}
}
