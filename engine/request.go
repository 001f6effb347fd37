package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"time"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/scan"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/internal/strictjson"
)

// idPattern is core.#ID: envelope ids the engine routes by must match it before use.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$`)

// unknownTenant is the audit stream for requests whose tenant cannot be trusted.
// It cannot collide with a tenant id: ids start with a letter or digit.
const unknownTenant = "_unknown"

// request is one request on its way through the pipeline.
type request struct {
	decisionID string
	body       []byte
	value      map[string]any // nil when undecodable
	digest     string
	requestID  string
	tenant     string
	workflow   string
	kind       string
	trace      string
	pack       *contract.Pack // nil when the request cannot be routed to a pack
	state      *State         // nil when no workflow could be loaded
	create     bool           // a start that would create the workflow
	audit      bool           // recorded in the security audit stream, not a workflow log
	// identityMismatch says the request is not its authenticated principal's.
	identityMismatch bool
	validation       []ValidationError
	derived          map[string]any
	now              time.Time
	// redacted is the copy of value the log records when the decision carries a
	// redaction code (redaction says so); redactErr is set when no safe copy exists.
	redacted  map[string]any
	redaction *Redaction
	redactErr error
}

// decodeRequest runs the strict decoder and reads the envelope fields it can trust.
func (dc *Decider) decodeRequest(body []byte, now time.Time) *request {
	r := &request{body: body, now: now, tenant: unknownTenant}
	v, err := strictjson.Decode(body, dc.limits.decoder())
	if err != nil {
		r.digest = canonjson.HashBytes(body)
		var se *strictjson.Error
		ve := ValidationError{Code: "INVALID_ENCODING", Message: err.Error()}
		if errors.As(err, &se) {
			ve = ValidationError{Code: se.Code, Path: se.Path, Message: se.Msg}
		}
		r.validation = append(r.validation, ve)
		r.audit = true
		return r
	}
	obj, ok := v.(map[string]any)
	if !ok {
		r.digest = canonjson.HashBytes(body)
		r.validation = append(r.validation, ValidationError{Code: "SCHEMA_INVALID", Message: "a request is a JSON object"})
		r.audit = true
		return r
	}
	r.value = obj
	if d, err := canonjson.Hash(obj); err == nil {
		r.digest = d
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

// refuse records a validation error found before the policy (routing, the store) and
// sends the request to its tenant's security audit stream.
func (r *request) refuse(ve ValidationError) {
	r.validation = append(r.validation, ve)
	r.audit = true
}

// idField returns an envelope id only when it is a well-formed id.
func idField(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	if !idPattern.MatchString(s) {
		return ""
	}
	return s
}

// derive computes the values policies need that are costly or impossible in Rego:
// content hashes and sizes, the forbidden-content and injection hits of every string
// (one scan, in Go), every artifact reference and scope field the request holds, and
// the request's jitter.
func (r *request) derive(scanner *scan.Scanner) {
	d := map[string]any{"output_hash": "", "input_hash": "", "context_bytes": 0, "payload_bytes": len(r.body), "jitter_permille": jitterPermille(r.digest)}
	forbidden, injection := scanner.Scan(r.value)
	d["forbidden"], d["injection"] = scan.HitValues(forbidden), scan.HitValues(injection)
	d["refs"] = scan.Refs(r.value)
	d["scopes"] = scan.Scopes(r.value, scanner.ScopeFields())
	if r.value != nil {
		if out, ok := r.value["output"].(map[string]any); ok {
			if c, ok := out["content"]; ok {
				if h, err := canonjson.Hash(c); err == nil {
					d["output_hash"] = h
				}
			}
		}
		if refs, ok := r.value["input_artifacts"].([]any); ok {
			sorted := append([]any(nil), refs...)
			sort.SliceStable(sorted, func(i, j int) bool { return refKey(sorted[i]) < refKey(sorted[j]) })
			if h, err := canonjson.Hash(sorted); err == nil {
				d["input_hash"] = h
			}
		}
		if c, ok := r.value["context"]; ok {
			if b, err := canonjson.Marshal(c); err == nil {
				d["context_bytes"] = len(b)
			}
		}
	}
	r.derived = d
}

// jitterPermille spreads the retries of many requests: a number from 0 to 100 drawn from
// the request's digest, so the same request always gets the same one. core.retry_decision
// adds delay_ms * jitter_permille / 1000 to a backoff, so the delay the decision reports,
// the delay a pack records and the delay it later checks are one number.
func jitterPermille(digest string) int {
	sum := sha256.Sum256([]byte(digest))
	return int(binary.BigEndian.Uint64(sum[:8]) % 101)
}

func refKey(v any) string {
	b, _ := canonjson.Marshal(v)
	return string(b)
}

// toValue turns a Go struct into the plain JSON values policies read.
func toValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}
