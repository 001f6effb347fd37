// Package engine is Handoff's policy-driven rules engine for handoffs between AI agents.
//
// An Engine compiles a bundle once at Open: CUE contracts (what every request and
// artifact must contain, which agent may do what) and Rego policies (the outcome of every
// handoff, review, retry, conflict and approval). Each request then flows through one
// pipeline:
//
//	bytes ─► strict decode ─► CUE validate ─► load state ─► build input ─► Rego decide
//	      ─► engine invariants ─► one store transaction (record, state, head, idempotency key)
//
// The pipeline from a decoded request and the workflow's state to the decision and the
// next state is one pure function, Decider.Decide: a Decider is the compiled bundle
// alone, and an Engine holds one (Engine.Decider) beside a store (idempotency, routing
// reads, the commit). Replay, explain and bench decide through the same function.
//
// A block is a Decision, not an error. Evaluate and Submit return an error only when no
// decision could be made (the store failed, the context ended); the host must then treat
// the request as blocked. When the policy errs, times out, is undefined or returns a
// result that does not match the CUE #PolicyResult, the decision is a block with reason
// POLICY_ERROR or POLICY_TIMEOUT: the engine fails closed.
//
// Whatever the policy says, the engine holds its invariants: tenants never cross (every
// read is scoped by tenant), approved artifact versions never change, a version number is
// never reused, and a block changes nothing.
//
// All methods of Engine are safe for concurrent use. One process owns one store
// directory; a second Open of the same directory fails at once with store.ErrLocked.
package engine
