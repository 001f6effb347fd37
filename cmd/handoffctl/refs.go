package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/store"
)

// requestObject decodes a hand-written request, which must be one JSON object: an empty
// file, bytes that are not JSON, or JSON that is not an object are refused here (exit
// 3) and never reach the engine, which would record them in the audit stream. nothing
// says what was not done ("nothing was submitted").
func requestObject(file string, body []byte, nothing string) (map[string]any, error) {
	name := file
	if file == "-" {
		name = "standard input"
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, negativef("%s is empty: a request is one JSON object; %s", name, nothing)
	}
	if !json.Valid(body) {
		err := json.Unmarshal(body, new(any))
		return nil, negativef("%s is not JSON (%v): a request is one JSON object; %s", name, err, nothing)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, negativef("%s is not JSON (%v): a request is one JSON object; %s", name, err, nothing)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, negativef("%s holds %s, not an object: a request is one JSON object; %s", name, jsonKind(v), nothing)
	}
	return obj, nil
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a JSON array"
	case string:
		return "a JSON string"
	case json.Number:
		return "a JSON number"
	case bool:
		return "a JSON boolean"
	case nil:
		return "JSON null"
	}
	return "a JSON value"
}

// resolveRefs replaces the placeholders of a hand-written request (${ref:TYPE@N},
// ${ref:TYPE@latest}, ${hash:…}, ${state_version}, ${workflow_id}) with what the
// recorded state of the request's own tenant and workflow holds, through b, and says
// on stderr what each resolved to. It resolves with the scenario runner's Resolver. A
// request without placeholders is returned as it is; resolved says whether it had any.
// A placeholder that does not resolve is a negative result naming what exists; nothing
// says what was not done.
func (c *cli) resolveRefs(ctx context.Context, b backend, body []byte, obj map[string]any, nothing string) (_ []byte, resolved bool, err error) {
	tenant, _ := obj["tenant_id"].(string)
	workflow, _ := obj["workflow_id"].(string)
	var lines []string
	seen := map[string]bool{}
	r := scenario.Resolver{
		Tenant:   tenant,
		Workflow: workflow,
		State: func(ctx context.Context, tenant, workflow string) (*engine.State, error) {
			if tenant == "" {
				return nil, errors.New("the request names no tenant_id")
			}
			return b.State(ctx, tenant, workflow)
		},
		Resolved: func(res scenario.Resolution) {
			if !seen[res.Placeholder] {
				seen[res.Placeholder] = true
				lines = append(lines, fmt.Sprintf("resolved %s → %s", res.Placeholder, resolvedValue(res)))
			}
		},
	}
	out, err := r.Replace(ctx, obj)
	switch {
	case err != nil && errors.Is(err, store.ErrNotFound):
		return nil, false, negativef("%v (%s); %s", err, c.workflowsOf(ctx, b, tenant), nothing)
	case err != nil:
		return nil, false, negativef("%v; %s", err, nothing)
	case len(lines) == 0:
		return body, false, nil
	}
	for _, l := range lines {
		fmt.Fprintln(c.stderr, l)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, false, err
	}
	return bytes.TrimSpace(buf.Bytes()), true, nil
}

// resolvedValue says what a placeholder was replaced with: an artifact version by type,
// version, id and full hash, any other value as JSON.
func resolvedValue(res scenario.Resolution) string {
	if ref := res.Ref; ref != nil {
		return fmt.Sprintf("%s v%d id %s %s", ref.Type, ref.Version, orDash(ref.ID), orDash(ref.Hash))
	}
	if s, ok := res.Value.(string); ok {
		return s
	}
	b, err := json.Marshal(res.Value)
	if err != nil {
		return fmt.Sprint(res.Value)
	}
	return string(b)
}

// workflowsOf says which workflows a tenant has, for an error about one it has not.
func (c *cli) workflowsOf(ctx context.Context, b backend, tenant string) string {
	if tenant == "" {
		return "set tenant_id and workflow_id"
	}
	wfs, err := b.ListWorkflows(ctx, tenant, engine.WorkflowFilter{})
	switch {
	case err != nil:
		return fmt.Sprintf("the workflows of tenant %s could not be listed: %v", tenant, err)
	case len(wfs) == 0:
		return fmt.Sprintf("tenant %s has no workflows", tenant)
	}
	const most = 10
	var ids []string
	for i, w := range wfs {
		if i == most {
			ids = append(ids, fmt.Sprintf("and %d more ('handoffctl workflows --tenant %s')", len(wfs)-most, tenant))
			break
		}
		ids = append(ids, w.WorkflowID)
	}
	return fmt.Sprintf("tenant %s has %s: %s", tenant, count(len(wfs), "workflow"), strings.Join(ids, ", "))
}
