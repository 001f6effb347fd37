package pipeline

// CloneState is a deep copy of a state, as decoding its JSON encoding would make it:
// nothing of the copy is shared with s, and nil maps and lists stay nil (but for the
// indices EnsureMaps gives a value).
func CloneState(s *State) *State {
	c := *s
	c.Artifacts = cloneMap(s.Artifacts, cloneHistory)
	c.Counters = cloneMap(s.Counters, same)
	c.Edges = cloneMap(s.Edges, same)
	c.InputHashes = cloneMap(s.InputHashes, same)
	c.RecentEdges = cloneSlice(s.RecentEdges, same)
	c.StageHandoffs = cloneMap(s.StageHandoffs, same)
	c.Conflicts = cloneMap(s.Conflicts, clonePtr(func(x Conflict) Conflict {
		x.Artifacts = cloneSlice(x.Artifacts, same)
		return x
	}))
	c.Approvals = cloneMap(s.Approvals, clonePtr(func(x ApprovalRecord) ApprovalRecord {
		x.Artifacts = cloneSlice(x.Artifacts, same)
		return x
	}))
	c.Defects = cloneMap(s.Defects, clonePtr(same[DefectRecord]))
	c.Effects = cloneMap(s.Effects, same)
	c.Tasks = cloneMap(s.Tasks, clonePtr(func(x Task) Task {
		x.DependsOn = cloneSlice(x.DependsOn, same)
		return x
	}))
	EnsureMaps(&c)
	return &c
}

func cloneHistory(h *ArtifactHistory) *ArtifactHistory {
	if h == nil {
		return nil
	}
	c := *h
	c.Versions = cloneMap(h.Versions, clonePtr(func(v ArtifactVersion) ArtifactVersion {
		v.BasedOn = cloneSlice(v.BasedOn, same)
		v.Assumptions = cloneSlice(v.Assumptions, same)
		v.Limitations = cloneSlice(v.Limitations, same)
		v.Content = cloneObject(v.Content)
		v.Meta = cloneObject(v.Meta)
		return v
	}))
	return &c
}

func same[T any](x T) T { return x }

func clonePtr[T any](f func(T) T) func(*T) *T {
	return func(p *T) *T {
		if p == nil {
			return nil
		}
		c := f(*p)
		return &c
	}
}

func cloneMap[V any](m map[string]V, f func(V) V) map[string]V {
	if m == nil {
		return nil
	}
	c := make(map[string]V, len(m))
	for k, v := range m {
		c[k] = f(v)
	}
	return c
}

func cloneSlice[T any](s []T, f func(T) T) []T {
	if s == nil {
		return nil
	}
	c := make([]T, len(s))
	for i, x := range s {
		c[i] = f(x)
	}
	return c
}

func cloneObject(m map[string]any) map[string]any { return cloneMap(m, cloneJSON) }

// cloneJSON copies a decoded JSON value: objects and arrays are copied, strings,
// numbers, booleans and null are immutable.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneObject(x)
	case []any:
		return cloneSlice(x, cloneJSON)
	}
	return v
}
