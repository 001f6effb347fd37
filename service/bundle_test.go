package service_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	legacy "github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/bundle"
	"github.com/handoff-dev/handoff/service"
)

// bundleAPI serves an engine whose handler reloads its bundle from the directory dir,
// signed with the key pub, as serve --bundle DIR --bundle-key PUB does.
func bundleAPI(t *testing.T, dir string, pub ed25519.PublicKey) (*api, *service.Handler) {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	src := &service.BundleSource{Name: dir, Load: func(ctx context.Context) (*engine.Decider, error) {
		b, _, err := bundle.LoadVerified(dir, pub)
		if err != nil {
			return nil, err
		}
		return engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b})
	}}
	h := service.New(e, service.Options{Principals: principals(t), Bundle: src})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, e.Close())
	})
	doc, err := openapi3.NewLoader().LoadFromData(service.OpenAPI)
	require.NoError(t, err)
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)
	return &api{t: t, srv: srv, e: e, router: router}, h
}

// copyBundle copies the shipped bundle's trees into a new directory.
func copyBundle(t *testing.T) string {
	dir := t.TempDir()
	for _, part := range []string{"contracts", "policies"} {
		require.NoError(t, os.CopyFS(filepath.Join(dir, part), os.DirFS(filepath.Join("..", part))))
	}
	return dir
}

func signBundle(t *testing.T, dir string, key ed25519.PrivateKey) {
	b, err := bundle.Load(dir)
	require.NoError(t, err)
	digest, err := bundle.Digest(b)
	require.NoError(t, err)
	data, err := json.Marshal(bundle.Sign(digest, key))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bundle.SignaturePath(dir), data, 0o644))
}

type bundleReload struct {
	Result, Error, Digest, Via string
	Previous                   string `json:"previous_digest"`
}

func (a *api) reload(want int) bundleReload {
	a.t.Helper()
	status, out := a.call("POST", "/v1/admin/bundle/reload", adminToken, "", nil)
	require.Equal(a.t, want, status, "%s", out)
	var r bundleReload
	require.NoError(a.t, json.Unmarshal(out, &r))
	return r
}

// A reload refused for its signature or because it does not compile keeps the live
// bundle deciding, and says why in the answer, GET /v1/admin/bundle and the metrics; a
// signed one that compiles decides from the next request on.
func TestBundleReloadRefusesWhatDoesNotVerifyOrCompile(t *testing.T) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_, other, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := copyBundle(t)
	a, _ := bundleAPI(t, dir, pub)
	shipped := a.e.Decider().BundleDigest()

	for _, token := range []string{hostToken, mariaToken} {
		status, _ := a.call("POST", "/v1/admin/bundle/reload", token, "", nil)
		assert.Equal(t, http.StatusForbidden, status)
		status, _ = a.call("GET", "/v1/admin/bundle", token, "", nil)
		assert.Equal(t, http.StatusForbidden, status)
	}

	r := a.reload(http.StatusUnprocessableEntity)
	assert.Equal(t, "unsigned", r.Result)
	assert.Contains(t, r.Error, ".signature.json")
	assert.Equal(t, shipped, r.Digest)

	signBundle(t, dir, other)
	r = a.reload(http.StatusUnprocessableEntity)
	assert.Equal(t, "bad_signature", r.Result)
	assert.Contains(t, r.Error, "not by the trusted key")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "contracts", "core", "broken.cue"), []byte("package core\n\nthis is not { cue\n"), 0o644))
	signBundle(t, dir, key)
	r = a.reload(http.StatusUnprocessableEntity)
	assert.Equal(t, "invalid", r.Result)
	assert.Contains(t, r.Error, "broken.cue")
	assert.Equal(t, shipped, a.e.Decider().BundleDigest(), "the old bundle keeps deciding")
	status, d := a.submit(hostToken, start)
	require.Equal(t, http.StatusOK, status, "%v", d)
	assert.Equal(t, shipped, d["policy"].(map[string]any)["bundle_digest"])

	require.NoError(t, os.Remove(filepath.Join(dir, "contracts", "core", "broken.cue")))
	f, err := os.OpenFile(filepath.Join(dir, "policies", "handoff", "core", "decide.rego"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n# a comment: another digest, the same decisions\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	signBundle(t, dir, key)
	r = a.reload(http.StatusOK)
	assert.Equal(t, "ok", r.Result)
	assert.Equal(t, "api", r.Via)
	assert.Equal(t, shipped, r.Previous)
	assert.NotEqual(t, shipped, r.Digest)
	assert.Equal(t, r.Digest, a.e.Decider().BundleDigest())
	status, d = a.submit(hostToken, strings.NewReplacer(`"req-start"`, `"req-start-2"`, `"wf-api"`, `"wf-api-2"`).Replace(start))
	require.Equal(t, http.StatusOK, status, "%v", d)
	assert.Equal(t, r.Digest, d["policy"].(map[string]any)["bundle_digest"])

	status, out := a.call("GET", "/v1/admin/bundle", adminToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	var st struct {
		Digest, Source string
		LoadedAt       string        `json:"loaded_at"`
		LastReload     *bundleReload `json:"last_reload"`
	}
	require.NoError(t, json.Unmarshal(out, &st))
	assert.Equal(t, r.Digest, st.Digest)
	assert.Equal(t, dir, st.Source)
	assert.NotEmpty(t, st.LoadedAt)
	require.NotNil(t, st.LastReload)
	assert.Equal(t, "ok", st.LastReload.Result)

	for result, n := range map[string]int{"ok": 1, "invalid": 1, "unsigned": 1, "bad_signature": 1} {
		assert.Equal(t, n, a.metric(`handoff_bundle_reloads_total{result="`+result+`"}`), result)
	}
	assert.Equal(t, 1, a.metric(`handoff_bundle_info{digest="`+r.Digest+`"}`))
}

// Principals read again replace the old ones at once: a token removed is refused from
// the next call, a token added is accepted.
func TestPrincipalsReload(t *testing.T) {
	a, h := bundleAPI(t, copyBundle(t), nil)
	status, _ := a.call("GET", "/v1/whoami", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)

	next, err := service.ParsePrincipals([]byte(`{"principals": [{"name": "newcomer", "token_sha256": "` + service.HashToken("tok-new") + `", "tenant_id": "acme", "type": "system", "id": "orchestrator"}]}`))
	require.NoError(t, err)
	h.ReloadPrincipals(next)
	status, _ = a.call("GET", "/v1/whoami", hostToken, "", nil)
	assert.Equal(t, http.StatusUnauthorized, status)
	status, out := a.call("GET", "/v1/whoami", "tok-new", "", nil)
	assert.Equal(t, http.StatusOK, status, "%s", out)
}
