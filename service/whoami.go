package service

import (
	"net/http"
	"time"
)

// identity is the answer of GET /v1/whoami: what a host holding only a token needs to
// fill its requests' envelope, since the service checks tenant and actor against it.
type identity struct {
	Name    string     `json:"name"`
	Tenant  string     `json:"tenant_id"`
	Actor   actorOf    `json:"actor"`
	Admin   bool       `json:"admin"`
	Expires *time.Time `json:"expires_at,omitempty"`
}

type actorOf struct {
	Type  string   `json:"type"`
	ID    string   `json:"id"`
	Roles []string `json:"roles,omitempty"`
}

// whoami answers the principal the bearer token names.
func (h *Handler) whoami(w http.ResponseWriter, _ *http.Request, p *Principal) {
	writeJSON(w, http.StatusOK, identity{Name: p.Name, Tenant: p.Tenant,
		Actor: actorOf{Type: p.Type, ID: p.ID, Roles: p.Roles}, Admin: p.Admin, Expires: p.ExpiresAt})
}
