// Package guide says what a workflow waits for and what a request looks like, from a
// compiled bundle alone.
//
// WaitingAt derives, from a pack's contract tables and a workflow's state, who may act
// in its status and the requests each may send, then proves each step: the step is made
// a request from its pack's template and decided through the pipeline as a dry run, on
// the workflow's state at the given time, and only what the policy takes is offered
// (with its word on it, or when it takes it). Actors derives the same parties without
// asking the policy. TemplateFor walks a pack's CUE request definition into a request
// skeleton, kept per pack, kind and options in the compiled contracts.
//
// The values a host receives (Waiting, Party, Step, Citation, Lead) are the
// vocabulary's. Nothing here reads or writes a store: package engine exposes it on the
// Decider.
package guide
