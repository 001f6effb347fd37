package webhook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testSecret = "0123456789abcdef0123456789abcdef"

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParseConfig(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(testSecret+"\n"), 0o600))
	doc := `{"webhooks": [
		{"name": "pager", "tenant_id": "acme", "url": "https://hooks.example.com/handoff", "events": ["await_human", "escalation"], "secret_env": "ACME_SECRET"},
		{"name": "pager", "tenant_id": "globex", "url": "http://10.0.0.1:9000/in", "events": ["escalation"], "secret_file": "` + secretFile + `", "escalation_statuses": ["HUMAN_REVIEW"]}
	]}`
	c, err := ParseConfig([]byte(doc), env(map[string]string{"ACME_SECRET": testSecret}))
	require.NoError(t, err)
	require.Len(t, c.Endpoints, 2)
	assert.Equal(t, []string{"acme", "globex"}, c.Tenants())
	assert.Equal(t, []byte(testSecret), c.of("acme")[0].secret)
	assert.Equal(t, []byte(testSecret), c.of("globex")[0].secret, "the file's trailing newline is not the secret's")
	assert.Equal(t, DefaultEscalationStatuses, c.of("acme")[0].EscalationStatuses)
	assert.Equal(t, []string{"HUMAN_REVIEW"}, c.of("globex")[0].EscalationStatuses)
	assert.True(t, c.of("acme")[0].wants(EventAwaitHuman))
	assert.False(t, c.of("globex")[0].wants(EventAwaitHuman))
}

// Every refusal names the endpoint and the field.
func TestParseConfigRefuses(t *testing.T) {
	vars := env(map[string]string{"S": testSecret, "SHORT": "short"})
	ep := func(fields string) string {
		return `{"webhooks": [{"name": "pager", "tenant_id": "acme", "events": ["await_human"], ` + fields + `}]}`
	}
	for name, c := range map[string]struct{ doc, want string }{
		"unknown field":  {ep(`"url": "https://x.example", "secret_env": "S", "retries": 3`), `unknown field "retries"`},
		"ftp":            {ep(`"url": "ftp://x.example/in", "secret_env": "S"`), `webhooks[0] (pager): url: scheme "ftp": want http or https`},
		"relative":       {ep(`"url": "/in", "secret_env": "S"`), `url: scheme "": want http or https`},
		"credentials":    {ep(`"url": "https://u:p@x.example/in", "secret_env": "S"`), "url: holds credentials"},
		"no url":         {ep(`"secret_env": "S"`), "url: required"},
		"inline secret":  {ep(`"url": "https://x.example", "secret": "` + testSecret + `"`), "secret: a secret is never written in the file"},
		"no secret":      {ep(`"url": "https://x.example"`), "secret_env or secret_file: required"},
		"both":           {ep(`"url": "https://x.example", "secret_env": "S", "secret_file": "f"`), "name one of them"},
		"unset variable": {ep(`"url": "https://x.example", "secret_env": "NOPE"`), "secret_env: NOPE is not set"},
		"short secret":   {ep(`"url": "https://x.example", "secret_env": "SHORT"`), "the signing secret is 5 bytes, want at least 16"},
		"missing file":   {ep(`"url": "https://x.example", "secret_file": "/nonexistent/secret"`), "secret_file: open /nonexistent/secret"},
		"bad event":      {`{"webhooks": [{"name": "pager", "tenant_id": "acme", "url": "https://x.example", "events": ["allow"], "secret_env": "S"}]}`, `events[0]: "allow" is not an event type`},
		"no events":      {`{"webhooks": [{"name": "pager", "tenant_id": "acme", "url": "https://x.example", "secret_env": "S"}]}`, "events: name at least one"},
		"no tenant":      {`{"webhooks": [{"name": "pager", "url": "https://x.example", "events": ["escalation"], "secret_env": "S"}]}`, "tenant_id: required"},
		"no name":        {`{"webhooks": [{"tenant_id": "acme", "url": "https://x.example", "events": ["escalation"], "secret_env": "S"}]}`, "webhooks[0] (): name: required"},
		"no list":        {`{}`, `"webhooks" is required`},
		"two documents":  {`{"webhooks": []} {}`, "more than one JSON document"},
		"same name": {`{"webhooks": [{"name": "pager", "tenant_id": "acme", "url": "https://x.example", "events": ["escalation"], "secret_env": "S"},
			{"name": "pager", "tenant_id": "acme", "url": "https://y.example", "events": ["escalation"], "secret_env": "S"}]}`, "webhooks[1] (pager): name: tenant acme has another endpoint of that name"},
	} {
		_, err := ParseConfig([]byte(c.doc), vars)
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), c.want, name)
		}
	}
}

func TestLoadConfigNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "webhooks.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"webhooks": [{"name": "x", "url": "gopher://x"}]}`), 0o600))
	_, err := LoadConfig(path)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "webhook: "+path+": webhooks[0] (x): "), err.Error())
}
