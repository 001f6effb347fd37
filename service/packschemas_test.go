package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/testsize"
	"github.com/handoff-dev/handoff/service"
)

var update = flag.Bool("update", false, "rewrite service/openapi.json and the committed pack documents of clients/schemas")

// packs are the shipped packs.
var packs = []string{"assessment", "campaign", "support", "video"}

// committedDocuments are the documents the clients' types are generated from, as the
// server serves them: clients/schemas/PACK/openapi.json (GET /v1/packs/PACK/openapi.json)
// and clients/schemas/PACK/schemas.json (GET /v1/packs/PACK/schemas, without the
// digests, which change with any edit of a policy).
func committedDocuments(t *testing.T, dc *engine.Decider, pack string) map[string][]byte {
	t.Helper()
	doc, err := service.PackOpenAPI(dc, pack)
	require.NoError(t, err)
	ps, err := dc.Schemas(pack)
	require.NoError(t, err)
	schemas := *ps
	schemas.PackDigest = ""
	b, err := json.MarshalIndent(schemas, "", "  ")
	require.NoError(t, err)
	return map[string][]byte{"openapi.json": doc, "schemas.json": append(b, '\n')}
}

// TestCommittedDocumentsAreCurrent fails when a contract or openapi.src.json changed and
// the committed documents (and so the clients' generated types) were not regenerated:
//
//	go test ./service -run TestCommittedDocumentsAreCurrent -update
func TestCommittedDocumentsAreCurrent(t *testing.T) {
	dc, err := engine.NewDecider(context.Background(), engine.DeciderOptions{})
	require.NoError(t, err)
	var names []string
	for _, p := range dc.Packs() {
		names = append(names, p.Name)
	}
	require.Equal(t, packs, names)
	files := map[string][]byte{}
	doc, err := service.GenerateOpenAPI(dc)
	require.NoError(t, err)
	files["openapi.json"] = doc
	for _, pack := range packs {
		for name, b := range committedDocuments(t, dc, pack) {
			files[filepath.Join("..", "clients", "schemas", pack, name)] = b
		}
	}
	for file, want := range files {
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, want, 0o644))
			continue
		}
		got, err := os.ReadFile(file)
		require.NoError(t, err, "run go test ./service -run TestCommittedDocumentsAreCurrent -update")
		require.True(t, bytes.Equal(want, got), "%s is stale: run go test ./service -run TestCommittedDocumentsAreCurrent -update, then regenerate the clients' types", file)
	}
}

// TestPackSchemasOverHTTP: the schemas, one kind's schema and the pack's OpenAPI
// document are served to a principal, refused without a token, and an unknown pack or
// kind is a 404 that says what there is.
func TestPackSchemasOverHTTP(t *testing.T) {
	a := newAPI(t)
	status, body := a.call("GET", "/v1/packs/support/schemas", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", body)
	var answer struct {
		BundleDigest string             `json:"bundle_digest"`
		Schemas      engine.PackSchemas `json:"schemas"`
	}
	require.NoError(t, json.Unmarshal(body, &answer))
	assert.Equal(t, a.e.Decider().BundleDigest(), answer.BundleDigest)
	assert.Equal(t, a.e.Decider().PackDigest("support"), answer.Schemas.PackDigest)
	for _, kind := range []string{"start", "handoff", "review", "approval", "failure", "resolution", "outcome", "cancel"} {
		assert.Contains(t, answer.Schemas.Requests, kind)
	}
	assert.Contains(t, answer.Schemas.Artifacts, "CUSTOMER_RESPONSE")
	assert.NotEmpty(t, answer.Schemas.Config, "the support pack's configuration (evidence sources, tasks) is served")

	status, body = a.call("GET", "/v1/packs/support/schemas/handoff", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", body)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("https://handoff.invalid/handoff.json", doc))
	schema, err := c.Compile("https://handoff.invalid/handoff.json")
	require.NoError(t, err, "the kind's schema is a document a validator takes as it is")
	require.Error(t, schema.Validate(map[string]any{"kind": "handoff"}))

	status, body = a.call("GET", "/v1/packs/support/schemas/promote", hostToken, "", nil)
	require.Equal(t, http.StatusNotFound, status)
	assert.Contains(t, string(body), "handoff")
	status, _ = a.call("GET", "/v1/packs/nosuch/schemas", hostToken, "", nil)
	require.Equal(t, http.StatusNotFound, status)
	status, _ = a.call("GET", "/v1/packs/nosuch/openapi.json", hostToken, "", nil)
	require.Equal(t, http.StatusNotFound, status)
	status, _ = a.call("GET", "/v1/packs/support/schemas", "", "", nil)
	require.Equal(t, http.StatusUnauthorized, status)

	status, body = a.call("GET", "/v1/packs/campaign/openapi.json", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	want, err := service.PackOpenAPI(a.e.Decider(), "campaign")
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(body))

	status, body = a.call("GET", "/v1/packs/campaign/contract", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(body), `"config"`, "the contract answer carries the pack's configuration")
}

// TestPackOpenAPIValidatesRequests: each pack's OpenAPI document is valid JSON Schema
// 2020-12 where it holds schemas, and its request body (PackRequest, a oneOf by kind)
// takes a valid request of the pack and refuses one with a field of another kind.
func TestPackOpenAPIValidatesRequests(t *testing.T) {
	dc, err := engine.NewDecider(context.Background(), engine.DeciderOptions{})
	require.NoError(t, err)
	for _, pack := range packs {
		b, err := service.PackOpenAPI(dc, pack)
		require.NoError(t, err)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		url := "https://handoff.invalid/" + pack + "/openapi.json"
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		require.NoError(t, c.AddResource(url, doc))
		for _, name := range []string{"PackRequest", "Decision", "State", "Error"} {
			_, err := c.Compile(url + "#/components/schemas/" + name)
			require.NoError(t, err, "%s: %s", pack, name)
		}
		request, err := c.Compile(url + "#/components/schemas/PackRequest")
		require.NoError(t, err)
		cancel := map[string]any{"request_id": "r-1", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-1",
			"actor": map[string]any{"type": "system", "id": "orchestrator"}, "reason": "the client withdrew"}
		if pack == "assessment" { // its envelope is the seed's: every request names its assessment
			cancel["organization_id"], cancel["created_at"], cancel["assessment_id"] = "acme-security", "2026-11-02T09:30:00Z", "asm-1"
		}
		require.NoError(t, request.Validate(cancel), pack)
		cancel["verdict"] = "ACCEPT"
		require.Error(t, request.Validate(cancel), "%s: a cancel with a review's field", pack)
	}
}

// TestAnswersMatchTheGeneratedShapes: the decisions, states and waiting lists the engine
// writes while it plays every pack's scenarios are what the document's shapes,
// generated from CUE, say: Decision, State and Waiting, read by an independent JSON
// Schema validator.
func TestAnswersMatchTheGeneratedShapes(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(service.OpenAPI))
	require.NoError(t, err)
	const url = "https://handoff.invalid/openapi.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource(url, doc))
	shape := map[string]*jsonschema.Schema{}
	for _, name := range []string{"Decision", "State", "Waiting"} {
		shape[name], err = c.Compile(url + "#/components/schemas/" + name)
		require.NoError(t, err)
	}
	conforms := func(t *testing.T, name string, v any) {
		t.Helper()
		b, err := json.Marshal(v)
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		require.NoError(t, shape[name].Validate(inst), "%s: %s", name, b)
	}
	ctx := context.Background()
	dc, err := engine.NewDecider(ctx, engine.DeciderOptions{LazyPolicies: true})
	require.NoError(t, err)
	var files []string
	for _, pack := range packs {
		f, err := filepath.Glob("../policies_test/handoff/" + pack + "/scenarios/*" + scenario.Ext)
		require.NoError(t, err)
		if testsize.Race { // a few: the plain run plays them all
			f = f[:2]
		}
		files = append(files, testsize.Sample(f, 4)...)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			sc, err := scenario.Load(file)
			require.NoError(t, err)
			eng, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), Decider: dc})
			require.NoError(t, err)
			defer eng.Close()
			require.NoError(t, scenario.Run(ctx, eng, sc, func(res scenario.Result) {
				conforms(t, "Decision", res.Decision)
				if res.Decision.Outcome == engine.Block && res.Decision.StateVersion == 0 {
					return
				}
				st, err := eng.State(ctx, res.Decision.TenantID, res.Decision.WorkflowID)
				if err != nil {
					return // a refusal of a workflow never started
				}
				conforms(t, "State", st)
				if res.Step%5 == 0 { // what it waits for is dearer: every fifth step
					at, err := time.Parse(time.RFC3339Nano, res.Decision.DecidedAt)
					require.NoError(t, err)
					w, err := dc.WaitingAt(ctx, st, at)
					require.NoError(t, err)
					conforms(t, "Waiting", w)
				}
			}))
		})
	}
}
