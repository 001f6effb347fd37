// Package client is a typed Go client of the Handoff service (handoffctl serve): the
// engine's own types over the /v1 API. handoffctl uses it for --server.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/handoff-dev/handoff"
)

// Client calls one server with one bearer token: the handoff.Service over HTTP. It is
// safe for concurrent use.
type Client struct {
	base  string
	token string
	http  *http.Client
}

var _ handoff.Service = (*Client)(nil)

// New returns a client of the server at base (http://host:port) with token. A nil
// httpClient is one with a one-minute timeout.
func New(base, token string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: time.Minute}
	}
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: httpClient}
}

// Error is an error answer of the service, as the server wrote it (handoff.Error: its
// status, code, message and hint; an IDENTITY_MISMATCH carries the recorded decision),
// and the path it answered. It matches the errors its code stands for with errors.Is
// (the table the server answers by, handoff.AnswerFor): a NOT_FOUND is
// handoff.ErrNotFound or handoff.ErrDecisionNotFound, a STORE_UNAVAILABLE
// handoff.ErrUnavailable.
type Error struct {
	answer
	path string
}

// answer is the server's error answer; embedded, its fields and its Is are Error's.
type answer = handoff.Error

func (e *Error) Error() string {
	return fmt.Sprintf("server: %s %s (%d): %s", e.Code, e.path, e.Status, e.Message)
}

// do sends one call and returns the response of a 2xx answer; any other is an *Error.
func (c *Client) do(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	e := &Error{answer: answer{Status: resp.StatusCode}, path: path}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(b, &e.answer) != nil || e.Code == "" {
		e.Code, e.Message = http.StatusText(resp.StatusCode), strings.TrimSpace(string(b))
	}
	return nil, e
}

// get decodes the JSON answer of a call into out.
func (c *Client) get(ctx context.Context, method, path string, body []byte, out any) error {
	resp, err := c.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	return dec.Decode(out)
}

func seg(s string) string { return url.PathEscape(s) }

// Submit decides a request and records it. A request that is not the token's
// principal's is an *Error with Code IDENTITY_MISMATCH and the recorded Decision.
func (c *Client) Submit(ctx context.Context, body []byte) (*handoff.Decision, error) {
	var d handoff.Decision
	return &d, c.get(ctx, "POST", "/v1/requests", body, &d)
}

// Evaluate decides a request without recording it.
func (c *Client) Evaluate(ctx context.Context, body []byte) (*handoff.Decision, error) {
	var d handoff.Decision
	return &d, c.get(ctx, "POST", "/v1/evaluate", body, &d)
}

// State returns a workflow's state.
func (c *Client) State(ctx context.Context, tenant, workflow string) (*handoff.State, error) {
	var st handoff.State
	return &st, c.get(ctx, "GET", "/v1/tenants/"+seg(tenant)+"/workflows/"+seg(workflow), nil, &st)
}

// History calls fn for every recorded decision of a workflow, oldest first.
func (c *Client) History(ctx context.Context, tenant, workflow string, fn func(handoff.Entry) error) error {
	var out struct{ Entries []handoff.Entry }
	if err := c.get(ctx, "GET", "/v1/tenants/"+seg(tenant)+"/workflows/"+seg(workflow)+"/log", nil, &out); err != nil {
		return err
	}
	return each(out.Entries, fn)
}

// Audit calls fn for every record of a tenant's security audit stream, oldest first.
func (c *Client) Audit(ctx context.Context, tenant string, fn func(handoff.Entry) error) error {
	var out struct{ Entries []handoff.Entry }
	if err := c.get(ctx, "GET", "/v1/tenants/"+seg(tenant)+"/audit", nil, &out); err != nil {
		return err
	}
	return each(out.Entries, fn)
}

func each[T any](xs []T, fn func(T) error) error {
	for _, x := range xs {
		if err := fn(x); err != nil {
			return err
		}
	}
	return nil
}

// ListWorkflows lists a tenant's workflows that f selects.
func (c *Client) ListWorkflows(ctx context.Context, tenant string, f handoff.WorkflowFilter) ([]handoff.WorkflowSummary, error) {
	q := url.Values{}
	if f.Pack != "" {
		q.Set("pack", f.Pack)
	}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	if f.AwaitingHuman {
		q.Set("awaiting", "human")
	}
	path := "/v1/tenants/" + seg(tenant) + "/workflows"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct{ Workflows []handoff.WorkflowSummary }
	return out.Workflows, c.get(ctx, "GET", path, nil, &out)
}

// Verify verifies one workflow's chain.
func (c *Client) Verify(ctx context.Context, tenant, workflow string) (handoff.VerifyReport, error) {
	reps, err := c.verify(ctx, tenant, "?workflow="+url.QueryEscape(workflow))
	if err != nil || len(reps) != 1 {
		return handoff.VerifyReport{}, cmpErr(err, fmt.Errorf("server: verify answered %d reports for one workflow", len(reps)))
	}
	return reps[0], nil
}

// VerifyTenant verifies every chain of a tenant.
func (c *Client) VerifyTenant(ctx context.Context, tenant string) ([]handoff.VerifyReport, error) {
	return c.verify(ctx, tenant, "")
}

func (c *Client) verify(ctx context.Context, tenant, query string) ([]handoff.VerifyReport, error) {
	var out struct{ Reports []handoff.VerifyReport }
	return out.Reports, c.get(ctx, "GET", "/v1/tenants/"+seg(tenant)+"/verify"+query, nil, &out)
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// Next says what a workflow waits for at time at (the zero time is the server's now):
// who may act, what each may send and cite, and what the policy says of each step.
func (c *Client) Next(ctx context.Context, tenant, workflow string, at time.Time) (*handoff.Waiting, error) {
	path := "/v1/tenants/" + seg(tenant) + "/workflows/" + seg(workflow) + "/next"
	if !at.IsZero() {
		path += "?at=" + url.QueryEscape(at.Format(time.RFC3339Nano))
	}
	var w handoff.Waiting
	return &w, c.get(ctx, "GET", path, nil, &w)
}

// TemplateOptions say which request a template is for, as handoffctl template's flags:
// Target makes a handoff's skeleton to that agent, Source and Output choose among the
// agents that hand to it and the types they hand.
type TemplateOptions struct {
	Target, Source, Output string
}

func (o TemplateOptions) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"target": o.Target, "source": o.Source, "output": o.Output} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// Template returns the skeleton of a request of kind for pack, as handoffctl template
// -o json writes it. An unknown pack or kind is an *Error NOT_FOUND, an unknown agent
// BAD_REQUEST; its hint names the closest names.
func (c *Client) Template(ctx context.Context, pack, kind string, opts TemplateOptions) (json.RawMessage, error) {
	path := "/v1/packs/" + seg(pack) + "/templates/" + seg(kind)
	if q := opts.query(); len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out json.RawMessage
	return out, c.get(ctx, "GET", path, nil, &out)
}

// FilledTemplate is a request skeleton filled for one workflow of the token's tenant:
// Request holds its tenant, organization, id and trace, and every ${ref:…} placeholder
// of a recorded version resolved to its {id, type, version, hash}; Unresolved lists the
// placeholders, left as written, of versions not recorded yet.
type FilledTemplate struct {
	Request    map[string]any `json:"request"`
	Unresolved []string       `json:"unresolved"`
}

// FillTemplate returns the skeleton of Template filled for workflow, a workflow of the
// token's own tenant: another tenant's is not found.
func (c *Client) FillTemplate(ctx context.Context, pack, kind, workflow string, opts TemplateOptions) (*FilledTemplate, error) {
	q := opts.query()
	q.Set("workflow_id", workflow)
	var f FilledTemplate
	return &f, c.get(ctx, "GET", "/v1/packs/"+seg(pack)+"/templates/"+seg(kind)+"?"+q.Encode(), nil, &f)
}

// Decision returns a recorded decision's log entry by its id.
func (c *Client) Decision(ctx context.Context, id string) (handoff.Entry, error) {
	var ent handoff.Entry
	return ent, c.get(ctx, "GET", "/v1/decisions/"+seg(id), nil, &ent)
}

// Explain explains a recorded decision.
func (c *Client) Explain(ctx context.Context, id string) (*handoff.Explanation, error) {
	var ex handoff.Explanation
	return &ex, c.get(ctx, "GET", "/v1/decisions/"+seg(id)+"/explain", nil, &ex)
}

// DecisionLog calls fn for every decision-log event of opts.Tenant (required), as the
// server streams them.
func (c *Client) DecisionLog(ctx context.Context, opts handoff.DecisionLogOptions, fn func(handoff.DecisionLogEvent) error) error {
	if opts.Tenant == "" {
		return fmt.Errorf("client: the decision log of a server is read tenant by tenant: set DecisionLogOptions.Tenant")
	}
	q := url.Values{}
	if opts.Workflow != "" {
		q.Set("workflow", opts.Workflow)
	}
	if !opts.Since.IsZero() {
		q.Set("since", opts.Since.Format(time.RFC3339Nano))
	}
	path := "/v1/tenants/" + seg(opts.Tenant) + "/decisions"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	resp, err := c.do(ctx, "GET", path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var ev handoff.DecisionLogEvent
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&ev); err != nil {
			return fmt.Errorf("client: decision log: %w", err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Close releases the client's idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// Backup streams a full copy of the server's store to w (an admin token's only).
func (c *Client) Backup(ctx context.Context, w io.Writer) error {
	resp, err := c.do(ctx, "GET", "/v1/backup", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}
