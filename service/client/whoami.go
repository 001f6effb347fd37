package client

import (
	"context"
	"time"
)

// Identity is the principal a token names, as /v1/whoami answers it: the tenant and
// actor every request sent with the token must name.
type Identity struct {
	Name   string `json:"name"`
	Tenant string `json:"tenant_id"`
	Actor  struct {
		Type  string   `json:"type"`
		ID    string   `json:"id"`
		Roles []string `json:"roles,omitempty"`
	} `json:"actor"`
	Admin     bool       `json:"admin"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// WhoAmI returns the principal of the client's token.
func (c *Client) WhoAmI(ctx context.Context) (Identity, error) {
	var out Identity
	return out, c.get(ctx, "GET", "/v1/whoami", nil, &out)
}
