package handoff

// Principal is who sent a request, as the host authenticated it (a service's bearer
// token, say): the tenant it acts for, its actor type and id, and for a person the roles
// it holds. A request sent with a Principal must name that tenant and that actor, and
// claim only roles the principal holds.
type Principal struct {
	Tenant string   `json:"tenant_id"`
	Type   string   `json:"type"` // agent, human or system
	ID     string   `json:"id"`
	Roles  []string `json:"roles,omitempty"`
}
