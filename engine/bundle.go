package engine

import "github.com/handoff-dev/handoff/engine/bundle"

// Bundle is a set of contracts and policies: a CUE module (cue.mod, core/ and one
// directory per pack) and a Rego tree (handoff/core/ and handoff/<pack>/ with the
// contract tables exported as JSON).
type Bundle = bundle.Bundle

// ShippedBundle returns the packs embedded in the engine.
func ShippedBundle() Bundle { return bundle.Shipped() }

// DirBundle returns the bundle in a directory laid out as the repository is: dir/contracts
// and dir/policies. Governance teams edit a copy of both.
func DirBundle(dir string) Bundle { return bundle.Dir(dir) }
