package bundle

import "runtime/debug"

// Versions are the versions of OPA and CUE a build was made with, as its module list
// records them; "" for one it does not list. They say which compilers judged a bundle.
func Versions(deps []*debug.Module) (opa, cue string) {
	for _, dep := range deps {
		switch dep.Path {
		case "github.com/open-policy-agent/opa":
			opa = dep.Version
		case "cuelang.org/go":
			cue = dep.Version
		}
	}
	return opa, cue
}
