// Package governance reads a store's decision log with the bundle it was recorded with:
// it replays the recorded decisions with a candidate bundle, explains one decision,
// verifies every chain, state and index against the fold of its decisions, signs and
// checks checkpoints of the chains' heads, and exports the log in OPA's decision-log
// shape. A Ledger holds the log and the recording bundle's pipeline; it decides through
// the same pure pipeline as the engine, and writes nothing.
//
// Package engine holds a Ledger beside its store and answers through it; this package
// does not import engine, so it links no store backend either.
package governance
