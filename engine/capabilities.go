package engine

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/handoff-dev/handoff/engine/bundle"
	"github.com/handoff-dev/handoff/engine/internal/policy"
)

// CapabilitiesFile is where the repository keeps Capabilities as JSON, for `opa check
// --capabilities` and `opa test --capabilities`.
const CapabilitiesFile = bundle.CapabilitiesFile

// Capabilities returns the capabilities policies are compiled with: OPA's builtins less
// those that reach outside the process or are not deterministic (http.send, net.*,
// opa.runtime, time.now_ns, rand.*, uuid.rfc4122 ...), and no network host. Every call
// returns a new value the caller may change.
func Capabilities() *ast.Capabilities { return policy.Capabilities() }

// CapabilitiesJSON is Capabilities in the form of CapabilitiesFile: OPA's capabilities
// document, indented, with a trailing newline.
func CapabilitiesJSON() ([]byte, error) { return bundle.CapabilitiesJSON() }

// PolicyErrors returns a copy of Rego errors made for people: a call of a builtin the
// engine removes says so and what to use instead, and each file is named under dir (the
// policy tree's directory in the bundle, "policies"; "" leaves the names alone). errs
// is not changed.
func PolicyErrors(errs ast.Errors, dir string) ast.Errors { return policy.PolicyErrors(errs, dir) }
