package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

// Resolver replaces the placeholders of a request with what one workflow of one tenant
// holds. A placeholder is a JSON string that is exactly one of:
//
//	${workflow_id}        the workflow's id
//	${state_version}      its state version
//	${conflict_id}        the conflict last opened, when the caller knows one
//	${ref:TYPE@N}         artifact version N of TYPE: {"id", "type", "version", "hash"}
//	${ref:TYPE@latest}    the latest recorded version of TYPE
//	${hash:TYPE@N}        that version's hash alone ("sha256:…"); @latest too
//
// The scenario runner resolves its steps with a Resolver, and handoffctl resolves
// hand-written requests with one: there is no other implementation. A Resolver is for
// one goroutine at a time; it reads the state once per Replace.
type Resolver struct {
	Tenant   string
	Workflow string
	// Version is ${state_version}; nil reads it from the workflow's state.
	Version *uint64
	// ConflictID is ${conflict_id}; empty when none is known, which makes the
	// placeholder an error.
	ConflictID string
	// State reads a workflow's recorded state (Engine.State). Its error, when the
	// workflow is not found, should match store.ErrNotFound: Replace wraps it.
	State func(ctx context.Context, tenant, workflow string) (*engine.State, error)
	// Resolved, when not nil, is called with every placeholder replaced.
	Resolved func(Resolution)
	// Missing, when not nil, keeps a ${ref:…} or ${hash:…} placeholder that names an
	// artifact type or version the workflow has not recorded as written, and is called
	// with it, rather than failing Replace: a template filled for a live workflow cites
	// what exists and says what does not yet.
	Missing func(placeholder string)

	st *engine.State // read once per Replace
}

// Resolution is one placeholder and what it was replaced with.
type Resolution struct {
	Placeholder string `json:"placeholder"` // as written: "${ref:COPY_PACKAGE@latest}"
	Value       any    `json:"value"`       // what replaced it
	// Ref is the artifact version a ${ref:…} or ${hash:…} named; nil for the others.
	Ref *engine.ArtifactRef `json:"ref,omitempty"`
}

// Replace replaces, in place, every string of v (a decoded JSON value: maps, slices,
// strings, numbers) that is a placeholder, and returns v. A string that starts with
// "${" and ends with "}" but names no placeholder, or one that does not resolve
// (unknown workflow, artifact type or version), is an error that says what exists.
func (r *Resolver) Replace(ctx context.Context, v any) (any, error) {
	r.st = nil
	return r.replace(ctx, v)
}

// IsPlaceholder says whether s has the form of a placeholder.
func IsPlaceholder(s string) bool {
	return strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}")
}

func (r *Resolver) replace(ctx context.Context, v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		// In key order: placeholders resolve, and fail, in the same order every time.
		for _, k := range sortedKeys(x) {
			n, err := r.replace(ctx, x[k])
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case []any:
		for i, e := range x {
			n, err := r.replace(ctx, e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	case string:
		if IsPlaceholder(x) {
			res, err := r.placeholder(ctx, x[2:len(x)-1])
			var nr notRecorded
			if errors.As(err, &nr) && r.Missing != nil {
				r.Missing(x)
				return x, nil
			}
			if err != nil {
				return nil, err
			}
			res.Placeholder = x
			if r.Resolved != nil {
				r.Resolved(res)
			}
			return res.Value, nil
		}
	}
	return v, nil
}

func (r *Resolver) placeholder(ctx context.Context, name string) (Resolution, error) {
	switch {
	case name == "workflow_id":
		return Resolution{Value: r.Workflow}, nil
	case name == "state_version":
		if r.Version != nil {
			return Resolution{Value: *r.Version}, nil
		}
		st, err := r.state(ctx, name)
		if err != nil {
			return Resolution{}, err
		}
		return Resolution{Value: st.StateVersion}, nil
	case name == "conflict_id":
		if r.ConflictID == "" {
			return Resolution{}, fmt.Errorf("placeholder ${%s}: no conflict was opened before it", name)
		}
		return Resolution{Value: r.ConflictID}, nil
	case strings.HasPrefix(name, "hash:"), strings.HasPrefix(name, "ref:"):
		kind, spec, _ := strings.Cut(name, ":")
		typ, ver, ok := strings.Cut(spec, "@")
		n, err := strconv.Atoi(ver)
		if !ok || typ == "" || (ver != "latest" && (err != nil || n < 1)) {
			return Resolution{}, fmt.Errorf("placeholder ${%s}: want TYPE@N (a version number) or TYPE@latest", name)
		}
		st, err := r.state(ctx, name)
		if err != nil {
			return Resolution{}, err
		}
		h := st.Artifacts[typ]
		if h == nil || len(h.Versions) == 0 {
			return Resolution{}, notRecorded{fmt.Errorf("placeholder ${%s}: workflow %s of tenant %s has no artifact of type %s (%s)", name, r.Workflow, r.Tenant, typ, artifactTypes(st))}
		}
		if ver == "latest" {
			n = h.Latest
		}
		v := h.Versions[strconv.Itoa(n)]
		if v == nil {
			return Resolution{}, notRecorded{fmt.Errorf("placeholder ${%s}: workflow %s of tenant %s has no %s v%d (%s)", name, r.Workflow, r.Tenant, typ, n, versionList(typ, h))}
		}
		ref := v.Ref
		if kind == "hash" {
			return Resolution{Value: ref.Hash, Ref: &ref}, nil
		}
		return Resolution{Value: map[string]any{"id": ref.ID, "type": ref.Type, "version": ref.Version, "hash": ref.Hash}, Ref: &ref}, nil
	}
	return Resolution{}, fmt.Errorf("unknown placeholder ${%s}: the placeholders are ${workflow_id}, ${state_version}, ${conflict_id}, ${ref:TYPE@N}, ${ref:TYPE@latest}, ${hash:TYPE@N} and ${hash:TYPE@latest}", name)
}

// notRecorded is the error of a placeholder naming an artifact version the workflow has
// not recorded, which Missing may keep.
type notRecorded struct{ error }

func (e notRecorded) Unwrap() error { return e.error }

// state reads the workflow's state, once per Replace.
func (r *Resolver) state(ctx context.Context, name string) (*engine.State, error) {
	if r.st != nil {
		return r.st, nil
	}
	if r.Workflow == "" {
		return nil, fmt.Errorf("placeholder ${%s}: the request names no workflow to read it from", name)
	}
	st, err := r.State(ctx, r.Tenant, r.Workflow)
	if err != nil {
		return nil, fmt.Errorf("placeholder ${%s}: workflow %s of tenant %s: %w", name, r.Workflow, r.Tenant, err)
	}
	r.st = st
	return st, nil
}

// artifactTypes says which artifact types a state records.
func artifactTypes(st *engine.State) string {
	var types []string
	for _, t := range sortedKeys(st.Artifacts) {
		if len(st.Artifacts[t].Versions) > 0 {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return "it records no artifact yet"
	}
	return "it records " + strings.Join(types, ", ")
}

// versionList says which versions of an artifact type are recorded.
func versionList(typ string, h *engine.ArtifactHistory) string {
	nums := make([]int, 0, len(h.Versions))
	for k := range h.Versions {
		if n, err := strconv.Atoi(k); err == nil {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	vs := make([]string, len(nums))
	for i, n := range nums {
		vs[i] = "v" + strconv.Itoa(n)
	}
	return typ + " has " + strings.Join(vs, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
