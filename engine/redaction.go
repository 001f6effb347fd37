package engine

import "github.com/handoff-dev/handoff"

// Redaction is handoff.Redaction.
type Redaction = handoff.Redaction

// TextHit is handoff.TextHit.
type TextHit = handoff.TextHit

// ErrUnrecordable is returned by Submit for a request that carries a string to redact (a
// secret) in a field the store keys records by (request_id, tenant_id, workflow_id): it
// cannot be recorded at all, redacted or not, so nothing is. Sending it again gets the
// same answer; the host treats it as blocked.
var ErrUnrecordable = handoff.ErrUnrecordable
