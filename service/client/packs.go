package client

import (
	"context"
	"encoding/json"

	"github.com/handoff-dev/handoff"
)

// PackInfo is one pack of the server's bundle, as /v1/packs lists it.
type PackInfo struct {
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Version  string   `json:"version"`
	Initial  string   `json:"initial"`
	Terminal []string `json:"terminal"`
}

// Packs lists the packs the server's bundle holds.
func (c *Client) Packs(ctx context.Context) ([]PackInfo, error) {
	var out struct {
		Packs []PackInfo `json:"packs"`
	}
	return out.Packs, c.get(ctx, "GET", "/v1/packs", nil, &out)
}

// Contract returns a pack's contract as the server answers it: the bundle digest, the
// pack's name, its contract tables and its configuration tables.
func (c *Client) Contract(ctx context.Context, pack string) (json.RawMessage, error) {
	var out json.RawMessage
	return out, c.get(ctx, "GET", "/v1/packs/"+seg(pack)+"/contract", nil, &out)
}

// Schemas returns a pack's JSON Schemas: one per request kind and one per artifact
// type's content, with the limits, gates and configuration they depend on.
func (c *Client) Schemas(ctx context.Context, pack string) (json.RawMessage, error) {
	var out json.RawMessage
	return out, c.get(ctx, "GET", "/v1/packs/"+seg(pack)+"/schemas", nil, &out)
}

// KindSchema returns the JSON Schema of one request kind of a pack.
func (c *Client) KindSchema(ctx context.Context, pack, kind string) (json.RawMessage, error) {
	var out json.RawMessage
	return out, c.get(ctx, "GET", "/v1/packs/"+seg(pack)+"/schemas/"+seg(kind), nil, &out)
}

// ReasonInfo is one reason code of the server's policies, as /v1/reasons lists it.
type ReasonInfo struct {
	Code        string `json:"code"`
	Package     string `json:"package"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Outcome     string `json:"outcome,omitempty"`
}

// Reasons lists the reason codes of the server's policies, each with the title and
// description of the rule that gives it.
func (c *Client) Reasons(ctx context.Context) ([]ReasonInfo, error) {
	var out struct {
		Reasons []ReasonInfo `json:"reasons"`
	}
	return out.Reasons, c.get(ctx, "GET", "/v1/reasons", nil, &out)
}

// OwnNext says what a workflow of the token's own tenant waits for now.
func (c *Client) OwnNext(ctx context.Context, workflow string) (*handoff.Waiting, error) {
	var w handoff.Waiting
	return &w, c.get(ctx, "GET", "/v1/workflows/"+seg(workflow)+"/next", nil, &w)
}
