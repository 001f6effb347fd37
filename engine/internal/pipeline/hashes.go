package pipeline

import (
	"fmt"

	"github.com/handoff-dev/handoff/internal/canonjson"
)

// sealHashes makes the hash of every version a decision records the engine's canonical
// hash of its content. A policy can hash a request's output (input.derived.output_hash)
// but not content it builds itself (a QA report, an approval record) the way the engine
// does, so the engine is the authority: it replaces each recorded hash and every
// reference to the same version elsewhere in the decision's events.
func sealHashes(d *Decision) error {
	type version struct {
		typ string
		n   int
	}
	sealed := map[version]string{}
	for i := range d.Events {
		e := &d.Events[i]
		if e.Type != "artifact_recorded" || e.Ref == nil {
			continue
		}
		var content any = map[string]any{}
		if e.Content != nil {
			content = e.Content
		}
		h, err := canonjson.Hash(content)
		if err != nil {
			return fmt.Errorf("hash %s v%d: %w", e.Ref.Type, e.Ref.Version, err)
		}
		sealed[version{e.Ref.Type, e.Ref.Version}] = h
	}
	if len(sealed) == 0 {
		return nil
	}
	fix := func(r *ArtifactRef) {
		if h, ok := sealed[version{r.Type, r.Version}]; ok {
			r.Hash = h
		}
	}
	for i := range d.Events {
		e := &d.Events[i]
		if e.Ref != nil {
			fix(e.Ref)
		}
		if e.Chosen != nil {
			fix(e.Chosen)
		}
		for j := range e.BasedOn {
			fix(&e.BasedOn[j])
		}
		for j := range e.Artifacts {
			fix(&e.Artifacts[j])
		}
	}
	return nil
}
