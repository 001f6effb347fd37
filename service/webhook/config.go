package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
)

// The event types an endpoint may ask for.
const (
	EventAwaitHuman = "await_human" // a gate waits for a person
	EventEscalation = "escalation"  // a conflict or case is handed to people
)

// DefaultEscalationStatuses are the statuses an escalation enters when an endpoint names
// none: the shipped packs (campaign, support, video) all call theirs ESCALATED.
var DefaultEscalationStatuses = []string{"ESCALATED"}

// minSecretBytes is the shortest signing secret accepted: a shorter HMAC key is guessed.
const minSecretBytes = 16

// Endpoint is one receiver of a tenant's events.
type Endpoint struct {
	// Name names the endpoint in logs, metrics and the idempotency id; unique within its
	// tenant. Renaming it changes the ids of its events.
	Name   string `json:"name"`
	Tenant string `json:"tenant_id"`
	// URL receives a POST per event: http or https, no credentials in it.
	URL string `json:"url"`
	// Events are the event types it receives: EventAwaitHuman, EventEscalation.
	Events []string `json:"events"`
	// SecretEnv names the environment variable that holds the signing secret; SecretFile
	// names a file that holds it (a trailing newline is not part of it). Exactly one.
	SecretEnv  string `json:"secret_env,omitempty"`
	SecretFile string `json:"secret_file,omitempty"`
	// Secret is never accepted: a configuration file is read, copied and committed by
	// too many hands to hold a key. It is only here to say so clearly.
	Secret *string `json:"secret,omitempty"`
	// EscalationStatuses are the statuses whose entry is an escalation (see
	// IsEscalation). Default DefaultEscalationStatuses.
	EscalationStatuses []string `json:"escalation_statuses,omitempty"`

	secret []byte
}

// wants reports whether the endpoint receives events of type typ.
func (ep *Endpoint) wants(typ string) bool { return slices.Contains(ep.Events, typ) }

// Config is a webhooks file: every tenant's endpoints.
type Config struct {
	Endpoints []*Endpoint
	byTenant  map[string][]*Endpoint
}

// Tenants lists the tenants with an endpoint, in the file's order.
func (c *Config) Tenants() []string {
	var out []string
	for _, ep := range c.Endpoints {
		if !slices.Contains(out, ep.Tenant) {
			out = append(out, ep.Tenant)
		}
	}
	return out
}

// of returns a tenant's endpoints.
func (c *Config) of(tenant string) []*Endpoint { return c.byTenant[tenant] }

var (
	idPattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$`)
	envPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
)

// LoadConfig reads a webhooks file, {"webhooks": [Endpoint, ...]}, and the secrets it
// names. Every error names the file.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("webhook: %w", err)
	}
	c, err := ParseConfig(b, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("webhook: %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig checks a webhooks document and reads the secrets it names, environment
// variables through lookupEnv. Unknown fields are refused. Every endpoint needs a name
// unique in its tenant, a tenant, an http or https URL, one event type at least and one
// source of its secret.
func ParseConfig(b []byte, lookupEnv func(string) (string, bool)) (*Config, error) {
	var doc struct {
		Webhooks []*Endpoint `json:"webhooks"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON document")
	}
	if doc.Webhooks == nil {
		return nil, errors.New(`"webhooks" is required: a list of endpoints`)
	}
	c := &Config{byTenant: map[string][]*Endpoint{}}
	var errs []error
	for i, ep := range doc.Webhooks {
		if ep == nil {
			errs = append(errs, fmt.Errorf("webhooks[%d]: null", i))
			continue
		}
		at := fmt.Sprintf("webhooks[%d] (%s)", i, ep.Name)
		if err := ep.check(lookupEnv); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at, err))
			continue
		}
		if slices.ContainsFunc(c.byTenant[ep.Tenant], func(o *Endpoint) bool { return o.Name == ep.Name }) {
			errs = append(errs, fmt.Errorf("%s: name: tenant %s has another endpoint of that name", at, ep.Tenant))
			continue
		}
		c.Endpoints = append(c.Endpoints, ep)
		c.byTenant[ep.Tenant] = append(c.byTenant[ep.Tenant], ep)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// check validates one endpoint and reads its secret.
func (ep *Endpoint) check(lookupEnv func(string) (string, bool)) error {
	switch {
	case !namePattern.MatchString(ep.Name):
		return errors.New("name: required, letters, digits, '.', '_' and '-' (at most 64)")
	case !idPattern.MatchString(ep.Tenant):
		return errors.New("tenant_id: required, an id")
	}
	if err := checkURL(ep.URL); err != nil {
		return fmt.Errorf("url: %w", err)
	}
	if len(ep.Events) == 0 {
		return fmt.Errorf("events: name at least one of %q, %q", EventAwaitHuman, EventEscalation)
	}
	for j, ev := range ep.Events {
		switch {
		case ev != EventAwaitHuman && ev != EventEscalation:
			return fmt.Errorf("events[%d]: %q is not an event type: want %q or %q", j, ev, EventAwaitHuman, EventEscalation)
		case slices.Index(ep.Events, ev) != j:
			return fmt.Errorf("events[%d]: %q is named twice", j, ev)
		}
	}
	for j, s := range ep.EscalationStatuses {
		if s == "" {
			return fmt.Errorf("escalation_statuses[%d]: empty", j)
		}
	}
	if ep.EscalationStatuses == nil {
		ep.EscalationStatuses = DefaultEscalationStatuses
	}
	secret, err := ep.readSecret(lookupEnv)
	if err != nil {
		return err
	}
	ep.secret = secret
	return nil
}

// checkURL accepts an absolute http or https URL with a host and no credentials.
func checkURL(raw string) error {
	if raw == "" {
		return errors.New("required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return errors.New("no host")
	case u.User != nil:
		return errors.New("holds credentials: the signature authenticates the sender, put none in the URL")
	case u.Fragment != "":
		return errors.New("holds a fragment")
	}
	return nil
}

// readSecret reads the endpoint's signing secret from the one place it names.
func (ep *Endpoint) readSecret(lookupEnv func(string) (string, bool)) ([]byte, error) {
	if ep.Secret != nil {
		return nil, errors.New("secret: a secret is never written in the file: name the environment variable that holds it (secret_env) or a file (secret_file)")
	}
	var secret string
	switch {
	case ep.SecretEnv != "" && ep.SecretFile != "":
		return nil, errors.New("secret_env and secret_file: name one of them")
	case ep.SecretEnv != "":
		if !envPattern.MatchString(ep.SecretEnv) {
			return nil, fmt.Errorf("secret_env: %q is not a variable name", ep.SecretEnv)
		}
		v, ok := lookupEnv(ep.SecretEnv)
		if !ok {
			return nil, fmt.Errorf("secret_env: %s is not set", ep.SecretEnv)
		}
		secret = v
	case ep.SecretFile != "":
		b, err := os.ReadFile(ep.SecretFile)
		if err != nil {
			return nil, fmt.Errorf("secret_file: %w", err)
		}
		secret = strings.TrimRight(string(b), "\r\n")
	default:
		return nil, errors.New("secret_env or secret_file: required, where the signing secret is")
	}
	if len(secret) < minSecretBytes {
		return nil, fmt.Errorf("the signing secret is %d bytes, want at least %d (openssl rand -hex 32)", len(secret), minSecretBytes)
	}
	return []byte(secret), nil
}
