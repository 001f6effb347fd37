package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
)

// removedBuiltins reach outside the process or are not deterministic. A policy that
// calls one fails to load, so a decision can always be replayed from its input. Each
// says what a policy uses instead. Every builtin under a removedPrefixes name is removed
// as well.
var removedBuiltins = map[string]string{
	"http.send":              "the host fetches what a decision needs and passes it in the request",
	"opa.runtime":            "the host passes what a decision needs in the request",
	"time.now_ns":            "use input.now, the decision's time (RFC 3339: time.parse_rfc3339_ns(input.now) gives nanoseconds)",
	"uuid.rfc4122":           "ids come in the request",
	"providers.aws.sign_req": "the host signs and sends requests, and passes their results in the request",
	"io.jwt.encode_sign":     "ECDSA signatures are randomized: the host signs tokens", //
	"io.jwt.encode_sign_raw": "ECDSA signatures are randomized: the host signs tokens",
}

var removedPrefixes = map[string]string{
	"net.":  "the host fetches what a decision needs and passes it in the request",
	"rand.": "ids and random choices come in the request",
}

// removedBuiltin says whether the engine removes a builtin and what to use instead.
func removedBuiltin(name string) (instead string, removed bool) {
	if s, ok := removedBuiltins[name]; ok {
		return s, true
	}
	for p, s := range removedPrefixes {
		if strings.HasPrefix(name, p) {
			return s, true
		}
	}
	return "", false
}

// Capabilities returns the capabilities policies are compiled with: OPA's builtins less
// those that reach outside the process or are not deterministic (http.send, net.*,
// opa.runtime, time.now_ns, rand.*, uuid.rfc4122 ...), and no network host. Every call
// returns a new value the caller may change.
func Capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if _, removed := removedBuiltin(b.Name); !removed {
			kept = append(kept, b)
		}
	}
	caps.Builtins = kept
	caps.AllowNet = []string{}
	return caps
}

// CapabilitiesJSON is Capabilities in the form of the repository's engine/capabilities.json: OPA's capabilities
// document, indented, with a trailing newline.
func CapabilitiesJSON() ([]byte, error) {
	b, err := json.MarshalIndent(Capabilities(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("engine: capabilities: %w", err)
	}
	return append(b, '\n'), nil
}

// PolicyErrors returns a copy of Rego errors made for people: a call of a builtin the
// engine removes says so and what to use instead, and each file is named under dir (the
// policy tree's directory in the bundle, "policies"; "" leaves the names alone). errs
// is not changed.
func PolicyErrors(errs ast.Errors, dir string) ast.Errors {
	out := make(ast.Errors, len(errs))
	for i, e := range errs {
		c := *e
		if c.Location != nil && dir != "" {
			loc := *c.Location
			loc.File = strings.TrimSuffix(dir, "/") + "/" + loc.File
			c.Location = &loc
		}
		if name, ok := strings.CutPrefix(c.Message, "undefined function "); ok {
			if instead, removed := removedBuiltin(name); removed {
				c.Message += ": the engine removes it on purpose, a decision must replay from its input alone: " + instead
			}
		}
		out[i] = &c
	}
	return out
}

// policiesDir is the policy tree's directory in a bundle laid out as the repository is.
const policiesDir = "policies"

// policyError names the files of a Rego load or parse error under policiesDir, as
// PolicyErrors does; other errors are returned as they are.
func policyError(err error) error {
	var errs ast.Errors
	if errors.As(err, &errs) {
		return PolicyErrors(errs, policiesDir)
	}
	var lerrs loader.Errors
	if !errors.As(err, &lerrs) {
		return err
	}
	var out ast.Errors
	for _, e := range lerrs {
		var many ast.Errors
		var one *ast.Error
		switch {
		case errors.As(e, &many):
			out = append(out, many...)
		case errors.As(e, &one):
			out = append(out, one)
		default:
			return err
		}
	}
	return PolicyErrors(out, policiesDir)
}
