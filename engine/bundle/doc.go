// Package bundle is what a governance team runs on a bundle of contracts and policies
// before the engine loads it: the contract tables exported from CUE and their
// freshness, the capabilities the policies are compiled with, formatting, the strict
// lint, the Rego unit tests with their traces and coverage, and the digests a Decider
// records.
//
// It compiles the bundle as the engine does (the same contract and policy compilers)
// but holds no decision pipeline: package engine builds on it, never the reverse, so
// a tool such as handoffctl reaches OPA and CUE only through it.
package bundle
