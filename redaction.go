package handoff

// Redaction says a recorded request is a redacted copy, not the request as it arrived:
// a reason of the decision (Codes) says it carried a secret, a credential or personal
// data, and the log and the security audit stream keep what they record forever. The
// core table guardrails.redaction names the codes, the kept fields and the marker.
type Redaction struct {
	// Codes are the decision's reason codes that required the redaction, sorted.
	Codes []string `json:"codes"`
	// Marker replaced every string outside the kept fields; an object key that is not a
	// plain lower-case field name became Marker#N.
	Marker string `json:"marker"`
	// Kept are the request fields whose strings were recorded as they arrived (minus any
	// string a reason pointed at).
	Kept []string `json:"kept"`
	// Replaced counts the strings and keys replaced by the marker.
	Replaced int `json:"replaced"`
	// RequestDigest is the SHA-256 of the canonical JSON of the original request: the
	// idempotency digest, so the same request again gets the recorded decision and
	// another one under the same request_id is IDEMPOTENCY_KEY_REUSED. An auditor who
	// holds the original proves it with it.
	RequestDigest string `json:"request_digest"`
	// BodySHA256 is the SHA-256 of the bytes as they arrived.
	BodySHA256 string `json:"body_sha256"`
	// Stub says even the kept fields were dropped (only request_id, kind, tenant_id and
	// workflow_id remain), because the redacted copy still held an offending string.
	Stub bool `json:"stub,omitempty"`
}
