package service_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhoAmINamesTheTokensPrincipal: a host holding only a token learns the tenant and
// actor its requests must name; every answer conforms to the OpenAPI document.
func TestWhoAmINamesTheTokensPrincipal(t *testing.T) {
	a := newAPI(t)
	status, body := a.call("GET", "/v1/whoami", mariaToken, "", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var me map[string]any
	require.NoError(t, json.Unmarshal(body, &me))
	assert.Equal(t, map[string]any{"name": "maria", "tenant_id": "acme", "admin": false,
		"actor": map[string]any{"type": "human", "id": "maria", "roles": []any{"campaign_approver"}}}, me)

	status, body = a.call("GET", "/v1/whoami", adminToken, "", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	require.NoError(t, json.Unmarshal(body, &me))
	assert.Equal(t, true, me["admin"])

	for _, token := range []string{"", "tok-nobody", expiredToken} {
		status, body = a.call("GET", "/v1/whoami", token, "", nil)
		assert.Equal(t, http.StatusUnauthorized, status, "%q: %s", token, body)
	}
}
