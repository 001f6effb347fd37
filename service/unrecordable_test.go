package service_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A secret in a field the log is keyed by cannot be recorded, even redacted: the answer
// says so, never quotes it, and does not ask for a resend that cannot help.
func TestSecretInAKeyFieldIsRefusedUnrecorded(t *testing.T) {
	a := newAPI(t)
	const key = "AKIAIOSFODNN7EXAMPLE"
	body := strings.Replace(start, `"req-start"`, `"`+key+`"`, 1)
	status, out := a.call("POST", "/v1/requests", hostToken, "application/json", []byte(body))
	require.Equal(t, http.StatusBadRequest, status, "%s", out)
	assert.Contains(t, string(out), `"UNRECORDABLE"`)
	assert.NotContains(t, string(out), key)
	assert.NotContains(t, string(out), "again with the same request_id")
	status, out = a.call("GET", "/v1/tenants/acme/workflows", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.NotContains(t, string(out), "wf-api", "nothing was recorded")
}
