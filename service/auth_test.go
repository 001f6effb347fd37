package service_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Authorization scheme is case-insensitive (RFC 7235) and may be followed by more
// than one space; anything else is no bearer token.
func TestBearerScheme(t *testing.T) {
	a := newAPI(t)
	for header, want := range map[string]int{
		"Bearer " + hostToken:       http.StatusOK,
		"bearer " + hostToken:       http.StatusOK,
		"BEARER " + hostToken:       http.StatusOK,
		"Bearer   " + hostToken:     http.StatusOK,
		"Basic " + hostToken:        http.StatusUnauthorized,
		"Bearer" + hostToken:        http.StatusUnauthorized,
		"Bearer ":                   http.StatusUnauthorized,
		hostToken:                   http.StatusUnauthorized,
		"Bearer " + hostToken + "x": http.StatusUnauthorized,
	} {
		req, err := http.NewRequest("GET", a.srv.URL+"/v1/tenants/acme/workflows", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", header)
		resp, err := a.srv.Client().Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, "%q: %s", header, body)
	}
}

// A principal past its expires_at is refused 401, and the answer says the token expired.
func TestExpiredTokenSaysSo(t *testing.T) {
	a := newAPI(t)
	status, out := a.call("GET", "/v1/tenants/acme/workflows", expiredToken, "", nil)
	require.Equal(t, http.StatusUnauthorized, status)
	var e struct{ Code, Message, Hint string }
	require.NoError(t, json.Unmarshal(out, &e))
	assert.Equal(t, "UNAUTHENTICATED", e.Code)
	assert.Contains(t, e.Hint, "expired at 2020-01-01T00:00:00Z")
	assert.Contains(t, e.Hint, "expires_at")
}
