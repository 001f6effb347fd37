// Package mcp serves the Handoff service to Model Context Protocol clients: an agent
// runtime that speaks MCP gets governed handoffs without an adapter.
//
// A server (New) is bound to one principal: every tool call goes to a running handoffctl serve
// through the Go client with that principal's token, so the service authenticates and
// decides exactly as it does for any other client. The tools say what a workflow waits
// for (next), give a request skeleton (template), decide a request without recording it
// (validate), submit it (submit), read a workflow (state) and explain a decision
// (explain). Each pack's contract and JSON Schemas are resources, and each pack has a
// prompt that explains its rules, built from the contract the service serves.
//
// An engine's refusal is a tool result, not an error: the outcome, each reason's code,
// message and what to fix, so that a model can act on it. Text that came from requests is
// quoted back inside untrusted-data markers. A failure to reach the service or a refused
// token is a tool error.
package mcp
