package console

import (
	"context"
	"strconv"

	"github.com/handoff-dev/handoff/engine"
)

// reading are the versions a person at a gate reads before deciding, on the page of
// the forms: those the approval form offers (the ones it cites first), the sides of
// each open conflict, and the versions recorded by the decision that brought the
// workflow to the gate (a stage approval, which cites no version, is about them).
func (c *Console) reading(ctx context.Context, st *engine.State, f *forms) []*versionView {
	var decided, others []*versionView
	seen := map[string]bool{}
	add := func(ref engine.ArtifactRef, cited bool) {
		key := ref.Type + "/" + strconv.Itoa(ref.Version)
		if seen[key] {
			return
		}
		v := c.readVersion(st, ref.Type, ref.Version)
		if v == nil {
			return
		}
		seen[key] = true
		v.Decided = cited
		if cited {
			decided = append(decided, v)
		} else {
			others = append(others, v)
		}
	}
	if f != nil {
		if f.Approval != nil {
			for _, ch := range f.Approval.Artifacts {
				if ch.Checked {
					add(ch.Ref, true)
				}
			}
			for _, ch := range f.Approval.Artifacts {
				add(ch.Ref, false)
			}
		}
		for _, cf := range f.Conflicts {
			for _, side := range cf.Sides {
				add(side.Ref, true)
			}
		}
	}
	if d, err := c.e.Standing(ctx, st.TenantID, st.WorkflowID); err == nil && d != nil {
		cited := len(decided) == 0
		for _, ev := range d.Events {
			if ev.Type == "artifact_recorded" && ev.Ref != nil {
				add(*ev.Ref, cited)
			}
		}
	}
	return append(decided, others...)
}
