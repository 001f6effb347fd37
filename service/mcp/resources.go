package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/handoff-dev/handoff/service/client"
)

const (
	contractTemplate = "handoff://packs/{pack}/contract"
	schemaTemplate   = "handoff://packs/{pack}/schemas/{kind}"
)

// addResources lists each pack's contract and the JSON Schema of each of its request
// kinds, and serves the templates for any pack and kind, read through the service.
func (s *server) addResources(ctx context.Context, srv *sdk.Server, packs []client.PackInfo) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{Name: "contract", Title: "A pack's contract", URITemplate: contractTemplate, MIMEType: "application/json",
		Description: "A pack's contract tables: agents and what each produces, consumes and hands to, artifact contracts, roles, statuses and transitions, gates, limits."}, s.readResource)
	srv.AddResourceTemplate(&sdk.ResourceTemplate{Name: "schema", Title: "A request kind's JSON Schema", URITemplate: schemaTemplate, MIMEType: "application/schema+json",
		Description: "The JSON Schema (2020-12) of one request kind of a pack: what a valid request of that kind holds."}, s.readResource)
	for _, info := range packs {
		pack := info.Name
		srv.AddResource(&sdk.Resource{Name: pack + "-contract", Title: "Contract of pack " + pack + ": " + info.Title, URI: contractURI(pack), MIMEType: "application/json",
			Description: "The contract tables of pack " + pack + ", as the service decides by them."}, s.readResource)
		kinds, err := s.kinds(ctx, pack)
		if err != nil {
			continue // the template still reads it
		}
		for _, kind := range kinds {
			srv.AddResource(&sdk.Resource{Name: pack + "-" + kind + "-schema", Title: "JSON Schema of a " + kind + " request of pack " + pack,
				URI: schemaURI(pack, kind), MIMEType: "application/schema+json"}, s.readResource)
		}
	}
}

func contractURI(pack string) string { return "handoff://packs/" + url.PathEscape(pack) + "/contract" }

func schemaURI(pack, kind string) string {
	return "handoff://packs/" + url.PathEscape(pack) + "/schemas/" + url.PathEscape(kind)
}

// kinds lists a pack's request kinds, from its schemas.
func (s *server) kinds(ctx context.Context, pack string) ([]string, error) {
	raw, err := s.c.Schemas(ctx, pack)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Schemas struct {
			Requests map[string]json.RawMessage `json:"requests"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(doc.Schemas.Requests))
	for k := range doc.Schemas.Requests {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// readResource reads a handoff://packs/… resource through the service.
func (s *server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	parts := strings.Split(strings.TrimPrefix(uri, "handoff://packs/"), "/")
	for i, p := range parts {
		var err error
		if parts[i], err = url.PathUnescape(p); err != nil {
			return nil, sdk.ResourceNotFoundError(uri)
		}
	}
	var raw json.RawMessage
	var err error
	mime := "application/json"
	switch {
	case !strings.HasPrefix(uri, "handoff://packs/"):
		return nil, sdk.ResourceNotFoundError(uri)
	case len(parts) == 2 && parts[1] == "contract":
		raw, err = s.c.Contract(ctx, parts[0])
	case len(parts) == 3 && parts[1] == "schemas":
		raw, err = s.c.KindSchema(ctx, parts[0], parts[2])
		mime = "application/schema+json"
	default:
		return nil, sdk.ResourceNotFoundError(uri)
	}
	var ce *client.Error
	if errors.As(err, &ce) && ce.Status == http.StatusNotFound {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: string(raw)}}}, nil
}
