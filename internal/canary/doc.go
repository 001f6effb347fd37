// Package canary reintroduces known bugs, one build tag each, so that CI can prove the
// reliability suites catch them: .ci/run builds each canary, runs the suite that must
// fail on it, and fails if the suite passes. Without the tags every constant is false
// and the code paths they guard are the real ones.
//
//	canary_version    the store skips the expected state version check
//	canary_prevhash   Verify skips the prev_hash link check
//	canary_tenant     the engine routes a request to a workflow of another tenant
//	canary_dupkeys    the strict decoder accepts duplicate and case-variant keys
//	canary_deadline   policy evaluation has no deadline
//	canary_ackcommit  the store answers an append once queued, before its commit
//	canary_idemscan   the idempotency lookup scans a key prefix instead of reading one key
//	canary_opendef    contract validation treats closed definitions as open
//	canary_snapshot   verify and replay take the stored state snapshot for the fold of the chain
//	canary_idembind   an idempotency key's answer is taken from the record it names unchecked
//	canary_actor      a request sent with a principal is not checked against it
//	canary_pgkey      a PostgreSQL store has no key on a workflow's record seqs
//	canary_csrf       the review console takes a form without its CSRF token
//	canary_origin     the review console takes a form posted from a page of another site
//	canary_refcheck   verify does not check idempotency keys and record ids against the records they name
//	canary_rawderived a redacted request's derived values are recorded as derived from the original
package canary
