package pipeline

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/internal/strictjson"
)

// idPattern is core.#ID: envelope ids the engine routes by must match it before use.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$`)

// UnknownTenant is the audit stream for requests whose tenant cannot be trusted.
// It cannot collide with a tenant id: ids start with a letter or digit.
const UnknownTenant = "_unknown"

// CodeIdentityMismatch blocks a request whose tenant or actor is not the principal the
// host authenticated.
const CodeIdentityMismatch = "IDENTITY_MISMATCH"

// Request is a request as decoded, once: the body, its value, its canonical digest and
// the envelope fields it can be trusted with. Nothing changes it after Decode.
type Request struct {
	body      []byte
	value     map[string]any // nil when undecodable
	canonical canonjson.Encoded
	digest    string
	requestID string
	tenant    string
	workflow  string
	kind      string
	trace     string
	// refused are the decoder's errors: an undecodable request.
	refused []ValidationError
	// mismatch refuses a request that is not its authenticated principal's.
	mismatch *ValidationError
}

// Decode runs the strict decoder, reads the envelope fields it can trust and binds the
// request to the principal that sent it (nil when the host authenticated none). The
// request is canonically encoded here, once: for its digest and, as it is, in its log
// record.
func (p *Pipeline) Decode(body []byte, from *Principal) *Request {
	r := p.decode(body)
	r.tenant, r.mismatch = r.sender(from)
	return r
}

func (p *Pipeline) decode(body []byte) *Request {
	r := &Request{body: body, tenant: UnknownTenant}
	v, err := strictjson.Decode(body, p.limits)
	if err != nil {
		r.digest = canonjson.HashBytes(body)
		var se *strictjson.Error
		ve := ValidationError{Code: "INVALID_ENCODING", Message: err.Error()}
		if errors.As(err, &se) {
			ve = ValidationError{Code: se.Code, Path: se.Path, Message: se.Msg}
		}
		r.refused = []ValidationError{ve}
		return r
	}
	obj, ok := v.(map[string]any)
	if !ok {
		r.digest = canonjson.HashBytes(body)
		r.refused = []ValidationError{{Code: "SCHEMA_INVALID", Message: "a request is a JSON object"}}
		return r
	}
	r.value = obj
	if b, err := canonjson.Marshal(obj); err == nil {
		r.canonical, r.digest = b, canonjson.HashBytes(b)
	} else {
		r.digest = canonjson.HashBytes(body)
	}
	r.requestID = idField(obj, "request_id")
	if t := idField(obj, "tenant_id"); t != "" {
		r.tenant = t
	}
	r.workflow = idField(obj, "workflow_id")
	r.kind, _ = obj["kind"].(string)
	r.trace, _ = obj["trace_id"].(string)
	return r
}

// Recorded is a request read back from the log to be decided again, with the identity
// its recorded decision names (the tenant it was recorded under, the workflow id it was
// given).
func Recorded(value map[string]any, d *Decision) *Request {
	return &Request{value: value, requestID: d.RequestID, tenant: d.TenantID, workflow: d.WorkflowID, kind: d.Kind, trace: d.TraceID}
}

// Decoded says the body decoded to a JSON object.
func (r *Request) Decoded() bool { return r.value != nil }

// ID is the request_id, empty when missing or malformed.
func (r *Request) ID() string { return r.requestID }

// Tenant is the tenant whose streams the request belongs to: the tenant_id it claims,
// its principal's when it is not the principal's or does not decode, UnknownTenant when
// it has none to trust.
func (r *Request) Tenant() string { return r.tenant }

// Trusted says the request decoded and is its principal's: what the store knows of it
// may be read.
func (r *Request) Trusted() bool { return r.value != nil && r.mismatch == nil }

// Workflow is the workflow_id, empty when missing or malformed.
func (r *Request) Workflow() string { return r.workflow }

// Kind is the request kind.
func (r *Request) Kind() string { return r.kind }

// Digest is the sha256 of the request's canonical encoding (of the body's bytes when
// it does not decode).
func (r *Request) Digest() string { return r.digest }

// PackName is the pack a start names.
func (r *Request) PackName() string {
	name, _ := r.value["pack"].(string)
	return name
}

// sender is the tenant whose streams the request belongs to when p sent it, and the
// refusal when the request is not p's: its tenant_id or actor is not p, or it claims
// a role p does not hold. Messages name the principal, never what the request claims.
// A nil p is the request's own tenant.
func (r *Request) sender(p *Principal) (tenant string, refusal *ValidationError) {
	if p == nil {
		return r.tenant, nil
	}
	if r.value == nil {
		return p.Tenant, nil
	}
	actor, _ := r.value["actor"].(map[string]any)
	typ, _ := actor["type"].(string)
	id, _ := actor["id"].(string)
	var why, path string
	switch {
	case r.tenant != p.Tenant:
		why, path = fmt.Sprintf("tenant_id is not %q, the tenant of the authenticated principal", p.Tenant), "tenant_id"
	case typ != p.Type || id != p.ID:
		why, path = fmt.Sprintf("actor is not %s %q, the authenticated principal", p.Type, p.ID), "actor"
	default:
		roles, _ := actor["roles"].([]any)
		for i, role := range roles {
			if s, ok := role.(string); !ok || !slices.Contains(p.Roles, s) {
				why, path = fmt.Sprintf("a role %s %q does not hold", p.Type, p.ID), fmt.Sprintf("actor.roles[%d]", i)
				break
			}
		}
	}
	if why == "" || canary.SkipActorCheck {
		return r.tenant, nil
	}
	return p.Tenant, &ValidationError{Code: CodeIdentityMismatch, Path: path, Message: why}
}

// idField returns an envelope id only when it is a well-formed id.
func idField(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	if !idPattern.MatchString(s) {
		return ""
	}
	return s
}
