package bundle

import "github.com/handoff-dev/handoff/engine/internal/policy"

// CapabilitiesFile is where the repository keeps the capabilities policies are compiled
// with, as JSON, for `opa check --capabilities` and `opa test --capabilities`.
const CapabilitiesFile = "engine/capabilities.json"

// CapabilitiesJSON are the capabilities policies are compiled with, in the form of
// CapabilitiesFile: OPA's capabilities document, indented, with a trailing newline. They
// are OPA's builtins less those that reach outside the process or are not deterministic
// (http.send, net.*, opa.runtime, time.now_ns, rand.*, uuid.rfc4122 ...), and no
// network host.
func CapabilitiesJSON() ([]byte, error) { return policy.CapabilitiesJSON() }
