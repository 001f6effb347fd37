// Package webhook tells people's systems that a gate waits, without anyone opening the
// console: it POSTs a signed JSON event to the endpoints a webhooks file configures per
// tenant when the engine records a decision that waits for a person (await_human) or
// hands a case to people (escalation; see EventType).
//
// An event carries ids, codes, statuses and rule titles, never free text. Its body is
// signed with HMAC-SHA256 over "<unix time>.<body>" (Handoff-Signature: t=…,v1=…;
// Verify checks it, with a replay window) and names its idempotency id
// (Handoff-Webhook-Id): the same for an endpoint and a decision on every attempt, after
// a restart and from every process. Delivery is at least once: network errors,
// timeouts, 5xx and 429 are retried with exponential backoff and jitter (Retry-After
// honoured), within bounded attempts and age; a delivery is recorded (Deliveries), and
// at start and after a drop the workflows waiting for a person are swept for gates
// whose delivery is not recorded. Several processes on one store may each send the
// same event: receivers dedupe by the id. docs/webhooks.md describes the format and
// how to verify it.
package webhook
