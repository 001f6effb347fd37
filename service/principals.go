package service

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// Principal is one holder of a bearer token: the tenant it acts for, its actor and
// roles, and whether it may read every tenant.
type Principal struct {
	// Name names the principal in logs and metrics; it is not the actor id.
	Name string `json:"name"`
	// TokenSHA256 is the hex SHA-256 of the token (HashToken): the file never holds a
	// token itself.
	TokenSHA256 string   `json:"token_sha256"`
	Tenant      string   `json:"tenant_id"`
	Type        string   `json:"type"` // agent, human or system
	ID          string   `json:"id"`
	Roles       []string `json:"roles,omitempty"`
	// Admin reads every tenant. It never submits for another tenant or actor.
	Admin bool `json:"admin,omitempty"`
	// ExpiresAt, when set, is when the token stops being accepted (RFC 3339).
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// engine is the principal as the engine checks requests against it.
func (p *Principal) engine() engine.Principal {
	return engine.Principal{Tenant: p.Tenant, Type: p.Type, ID: p.ID, Roles: p.Roles}
}

// may says whether the principal reads tenant's data.
func (p *Principal) may(tenant string) bool { return p.Admin || p.Tenant == tenant }

// Principals maps token hashes to principals. Replace swaps the whole map at once: a
// call is authenticated against the file before or after a reload, never a mix.
type Principals struct {
	byHash atomic.Pointer[map[string]*Principal]
}

var (
	hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)
	idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$`)
)

// HashToken is the hex SHA-256 of a token, as a principals file holds it.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// LoadPrincipals reads a principals file: {"principals": [Principal, ...]}.
func LoadPrincipals(path string) (*Principals, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("service: principals: %w", err)
	}
	return ParsePrincipals(b)
}

// ParsePrincipals checks and indexes a principals document. Every principal needs a
// name, a token hash, a tenant and an actor; two may not share a token.
func ParsePrincipals(b []byte) (*Principals, error) {
	var doc struct {
		Principals []*Principal `json:"principals"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("service: principals: %w", err)
	}
	byHash := map[string]*Principal{}
	var errs []error
	for i, p := range doc.Principals {
		at := fmt.Sprintf("principals[%d] (%s)", i, p.Name)
		switch {
		case p.Name == "":
			errs = append(errs, fmt.Errorf("%s: name is required", at))
		case !hexSHA256.MatchString(p.TokenSHA256):
			errs = append(errs, fmt.Errorf("%s: token_sha256 must be 64 lowercase hex digits (handoffctl token hash)", at))
		case !idPattern.MatchString(p.Tenant):
			errs = append(errs, fmt.Errorf("%s: tenant_id must be an id", at))
		case p.Type != "agent" && p.Type != "human" && p.Type != "system":
			errs = append(errs, fmt.Errorf("%s: type must be agent, human or system", at))
		case !idPattern.MatchString(p.ID):
			errs = append(errs, fmt.Errorf("%s: id must be an id", at))
		case byHash[p.TokenSHA256] != nil:
			errs = append(errs, fmt.Errorf("%s: another principal has the same token", at))
		default:
			byHash[p.TokenSHA256] = p
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("service: principals: %w", err)
	}
	ps := &Principals{}
	ps.byHash.Store(&byHash)
	return ps, nil
}

// Replace makes the principals of next those of ps, for every call authenticated from
// now on: a principals file read again (ReloadPrincipals).
func (ps *Principals) Replace(next *Principals) { ps.byHash.Store(next.byHash.Load()) }

// get is the principal holding the token hash h, nil for none.
func (ps *Principals) get(h string) *Principal { return (*ps.byHash.Load())[h] }

// lookup returns the principal of a token, nil when none holds it; expired, when set,
// says the token's principal exists but stopped accepting it at that time, before now.
func (ps *Principals) lookup(token string, now time.Time) (p *Principal, expired *time.Time) {
	if ps == nil || token == "" {
		return nil, nil
	}
	h := HashToken(token)
	p = ps.get(h)
	if p == nil || subtle.ConstantTimeCompare([]byte(p.TokenSHA256), []byte(h)) != 1 {
		return nil, nil
	}
	if p.ExpiresAt != nil && !now.Before(*p.ExpiresAt) {
		return nil, p.ExpiresAt
	}
	return p, nil
}

// holder returns the principal of a token whether or not it has expired; nil for none.
func (ps *Principals) holder(token string) *Principal {
	p := ps.get(HashToken(token))
	if p == nil || subtle.ConstantTimeCompare([]byte(p.TokenSHA256), []byte(HashToken(token))) != 1 {
		return nil
	}
	return p
}

// holds says whether a principal named name, a person of tenant with actor id, those
// roles and that admin right, is among ps and accepted at now: a console session opened
// for it lasts only as long.
func (ps *Principals) holds(name, tenant, id string, roles []string, admin bool, now time.Time) bool {
	for _, p := range *ps.byHash.Load() {
		if p.Name == name && p.Type == "human" && p.Tenant == tenant && p.ID == id && p.Admin == admin &&
			slices.Equal(p.Roles, roles) && (p.ExpiresAt == nil || now.Before(*p.ExpiresAt)) {
			return true
		}
	}
	return false
}

// Len is the number of principals.
func (ps *Principals) Len() int { return len(*ps.byHash.Load()) }
