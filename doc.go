// Package handoff is the vocabulary of Handoff, the policy-driven rules engine for
// handoffs between AI agents: the values every part of it and every host speak in
// (Decision, Reason, Outcome, Event, State, Entry, Principal, Explanation, Waiting),
// the errors callers branch on, and Service, what a host calls to decide and read.
//
// It depends on the standard library alone, so that a host that only talks to a
// Handoff server (package service/client) links no policy engine, CUE or store. The
// engine (package engine) implements Service in process; service/client implements it
// over HTTP.
//
// A block is a Decision, not an error: an error means no decision could be made, and
// the host must then treat the request as blocked.
package handoff

// The wire types are generated from the core CUE contracts.
//go:generate go run ./internal/wiregen/cmd/wiregen
