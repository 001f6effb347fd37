package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery.
const (
	// SignatureHeader is "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">".
	SignatureHeader = "Handoff-Signature"
	// IDHeader is the event's idempotency id (Event.ID): a receiver that saw it before
	// answers 2xx and does nothing.
	IDHeader = "Handoff-Webhook-Id"
	// EventHeader is the event's type.
	EventHeader = "Handoff-Event"
)

// DefaultTolerance is the replay window Verify uses when given none.
const DefaultTolerance = 5 * time.Minute

// The errors of Verify.
var (
	ErrNoSignature  = errors.New("webhook: no Handoff-Signature, or one without t= and v1=")
	ErrBadSignature = errors.New("webhook: the signature does not match the body")
	ErrStale        = errors.New("webhook: the signature's timestamp is outside the tolerance")
)

// Sign is the Handoff-Signature of body signed with secret at time t.
func Sign(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret []byte, ts string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks a delivery as its receiver gets it: header is the Handoff-Signature
// value, body the raw request body (before any JSON decoding), now the receiver's
// clock. It fails with ErrNoSignature when the header is malformed, ErrBadSignature when
// no v1 of it is the HMAC-SHA256 of "<t>.<body>" under secret (compared in constant
// time), and ErrStale when t is more than tolerance away from now (DefaultTolerance
// when tolerance ≤ 0): the replay window, so that a delivery captured on the way is
// refused once it has passed. Within the window a copy replays: dedupe by
// Handoff-Webhook-Id. Several v1 values are accepted, any one matching.
func Verify(secret []byte, header string, body []byte, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case !ok:
			return ErrNoSignature
		case k == "t":
			ts = v
		case k == "v1":
			sigs = append(sigs, v)
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrNoSignature
	}
	want := []byte(mac(secret, ts, body))
	matched := false
	for _, s := range sigs {
		if hmac.Equal([]byte(strings.ToLower(s)), want) {
			matched = true
		}
	}
	if !matched {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return ErrStale
	}
	return nil
}
