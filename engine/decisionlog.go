package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/store"
)

// DecisionLogOptions select the decisions DecisionLog exports. The zero value selects
// every decision of every workflow and audit stream of every tenant.
type DecisionLogOptions struct {
	// Tenant limits the export to one tenant. Default: every tenant.
	Tenant string
	// Workflow limits the export to one workflow (and leaves the audit streams out).
	Workflow string
	// Since skips decisions recorded before this time.
	Since time.Time
}

// DecisionLogEvent is one decision in the shape of an OPA decision-log event (OPA's
// plugins/logs EventV1), so tools that read OPA decision logs read it: the input is the
// policy input the engine evaluated, the result the decision it returned.
type DecisionLogEvent struct {
	Labels     map[string]string     `json:"labels"`
	DecisionID string                `json:"decision_id"`
	Bundles    map[string]BundleInfo `json:"bundles"`
	Path       string                `json:"path"`
	Input      any                   `json:"input"`
	Result     any                   `json:"result"`
	// Erased lists, as JSON pointers, the values removed because the pack marks them
	// sensitive (OPA's decision-log masking records removals the same way).
	Erased    []string `json:"erased,omitempty"`
	Timestamp string   `json:"timestamp"`
	// Custom holds where the decision is in the log: stream ("workflow" or "audit"),
	// seq and hash; and redaction (a Redaction) when input.request is the redacted copy
	// the log holds instead of the request, which carried a secret or personal data.
	Custom map[string]any `json:"custom"`
}

// BundleInfo names the revision of a bundle: here the bundle digest.
type BundleInfo struct {
	Revision string `json:"revision"`
}

// DecisionLog calls fn for every selected decision in OPA's decision-log shape, tenant
// by tenant (each tenant's workflows in id order, then its audit stream), each in log
// order. The input of a workflow decision holds the workflow state before it, rebuilt as
// Replay rebuilds it; a decision of a security audit stream has state null (the engine
// had no workflow state it could trust). Fields a pack lists in its table
// sensitive_fields (request paths such as output.content.research_log) are removed from
// the request and, for output content, from the artifact versions in the state and the
// events of the result, and listed in Erased.
func (e *Engine) DecisionLog(ctx context.Context, opts DecisionLogOptions, fn func(DecisionLogEvent) error) error {
	tenants := []string{opts.Tenant}
	if opts.Tenant == "" {
		var err error
		if tenants, err = e.log.Tenants(ctx); err != nil {
			return err
		}
	}
	for _, t := range tenants {
		var wfs []string
		if err := e.log.Workflows(ctx, t, func(w string, _ store.Head) error {
			if opts.Workflow == "" || opts.Workflow == w {
				wfs = append(wfs, w)
			}
			return nil
		}); err != nil {
			return err
		}
		sort.Strings(wfs)
		for _, w := range wfs {
			err := e.walkWorkflow(ctx, replayTarget{t, w}, func(v visit) error {
				if v.rec.Time.Before(opts.Since) {
					return nil
				}
				ev, err := e.logEvent(v.rec, v.ent, v.state, "workflow")
				if err != nil {
					return err
				}
				return fn(ev)
			})
			if err != nil {
				return err
			}
		}
		if opts.Workflow != "" {
			continue
		}
		err := e.log.AuditRecords(ctx, t, func(rec store.Record) error {
			if rec.Time.Before(opts.Since) {
				return nil
			}
			var ent recordedEntry
			dec := json.NewDecoder(bytes.NewReader(rec.Payload))
			dec.UseNumber()
			if err := dec.Decode(&ent); err != nil {
				return fmt.Errorf("engine: audit record %d of tenant %s: %w", rec.Seq, t, err)
			}
			ev, err := e.logEvent(rec, ent, nil, "audit")
			if err != nil {
				return err
			}
			return fn(ev)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// logEvent builds the event of one record.
func (e *Engine) logEvent(rec store.Record, ent recordedEntry, state *State, stream string) (DecisionLogEvent, error) {
	d, err := decodeDecision(ent.Decision)
	if err != nil {
		return DecisionLogEvent{}, err
	}
	result, err := decodeJSON(ent.Decision)
	if err != nil {
		return DecisionLogEvent{}, err
	}
	var st any
	if state != nil {
		if st, err = toValue(state); err != nil {
			return DecisionLogEvent{}, err
		}
	}
	var req any = ent.Request
	if ent.Request == nil {
		req = nil
	}
	validation := ent.Validation
	if validation == nil {
		validation = []ValidationError{}
	}
	input := map[string]any{
		"pack": d.Pack, "request": req, "validation": map[string]any{"errors": validationValues(validation)},
		"state": st, "derived": ent.Derived, "now": ent.Now,
	}
	ev := DecisionLogEvent{
		Labels: map[string]string{
			"id": "handoff", "tenant_id": d.TenantID, "workflow_id": d.WorkflowID,
			"pack": d.Pack, "trace_id": d.TraceID, "request_id": d.RequestID,
		},
		DecisionID: d.DecisionID,
		Bundles:    map[string]BundleInfo{"handoff": {Revision: d.Policy.BundleDigest}},
		Path:       strings.ReplaceAll(strings.TrimPrefix(d.Policy.Entrypoint, "data."), ".", "/"),
		Input:      input,
		Result:     result,
		Timestamp:  d.DecidedAt,
		Custom:     map[string]any{"stream": stream, "seq": rec.Seq, "hash": rec.Hash},
	}
	if ent.Redaction != nil {
		// input.request is the redacted copy the log holds: say so.
		ev.Custom["redaction"] = ent.Redaction
	}
	ev.Erased = e.mask(d.Pack, input, result)
	return ev, nil
}

// mask removes the pack's sensitive fields from the input and result and returns the
// JSON pointers removed, sorted.
func (e *Engine) mask(pack string, input map[string]any, result any) []string {
	var erased []string
	for _, f := range e.sensitiveFields(pack) {
		path := strings.Split(f, ".")
		if eraseAt(input["request"], path) {
			erased = append(erased, pointer(append([]string{"input", "request"}, path...)))
		}
		rest, ok := strings.CutPrefix(f, "output.content.")
		if !ok {
			continue
		}
		sub := strings.Split(rest, ".")
		// Recorded versions of the artifact in the state.
		if st, ok := input["state"].(map[string]any); ok {
			arts, _ := st["artifacts"].(map[string]any)
			for _, typ := range sortedMapKeys(arts) {
				versions, _ := arts[typ].(map[string]any)["versions"].(map[string]any)
				for _, n := range sortedMapKeys(versions) {
					v, _ := versions[n].(map[string]any)
					if eraseAt(v["content"], sub) {
						erased = append(erased, pointer(append([]string{"input", "state", "artifacts", typ, "versions", n, "content"}, sub...)))
					}
				}
			}
		}
		// Events of the decision that record content.
		if res, ok := result.(map[string]any); ok {
			events, _ := res["events"].([]any)
			for i, ev := range events {
				m, _ := ev.(map[string]any)
				if m != nil && eraseAt(m["content"], sub) {
					erased = append(erased, pointer(append([]string{"result", "events", strconv.Itoa(i), "content"}, sub...)))
				}
			}
		}
	}
	sort.Strings(erased)
	return erased
}

// sensitiveFields reads a pack's sensitive_fields table. A decision of no known pack (a
// request blocked before routing) is masked with the fields of every pack.
func (e *Engine) sensitiveFields(pack string) []string {
	packs := []*packContract{e.contracts.packs[pack]}
	if packs[0] == nil {
		packs = packs[:0]
		for _, n := range e.contracts.packNames() {
			packs = append(packs, e.contracts.packs[n])
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range packs {
		list, _ := p.tables["sensitive_fields"].([]any)
		for _, x := range list {
			if s, ok := x.(string); ok && s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// eraseAt deletes the value at path under v (objects only) and says whether it was there.
func eraseAt(v any, path []string) bool {
	m, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return false
	}
	if len(path) == 1 {
		if _, ok := m[path[0]]; !ok {
			return false
		}
		delete(m, path[0])
		return true
	}
	return eraseAt(m[path[0]], path[1:])
}

// pointer writes an RFC 6901 JSON pointer.
func pointer(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
