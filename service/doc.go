// Package service serves an engine over HTTP: JSON endpoints under /v1 to submit and
// evaluate requests and to read workflows, logs, audit streams, verification,
// explanations and the decision log, plus /health, /health/ready and Prometheus
// /metrics. New returns an http.Handler a Go host mounts in its own mux; `handoffctl
// serve` runs it on a store.
//
// Every /v1 call is authenticated with a bearer token that a principals file maps to a
// tenant, an actor (type and id) and roles (see Principals). A submitted request must be
// its principal's: the engine checks its tenant_id and actor against the principal
// (engine.Engine.SubmitFrom) and blocks a mismatch with IDENTITY_MISMATCH, HTTP 403.
// Reads are scoped to the principal's tenant; a principal with the admin flag reads
// every tenant. A block is a decision, answered with 200 like any other; an error means
// no decision could be made, and the host must treat the request as blocked.
//
// The API is described by the OpenAPI 3 document served at /v1/openapi.json
// (OpenAPI). A Handler is safe for concurrent use.
package service
