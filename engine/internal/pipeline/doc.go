// Package pipeline is the decision, pure: a request decoded once, routed to the state it
// is given, validated against its contract, scanned, evaluated by its pack's policy,
// settled under the engine's invariants and redacted. Decide is the one entry: the
// engine's Submit and Evaluate, replay and explain all call it, with the facts they read
// from the store in its Input. Nothing here reads or writes a store.
//
// Each stage returns its value; the Request a stage reads is never changed once Decode
// returns it.
package pipeline
