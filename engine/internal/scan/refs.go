package scan

import (
	"encoding/json"
	"slices"
	"strconv"
)

// Refs returns every artifact reference a request holds, wherever it is: each
// object with a string id, a string type, a whole-number version and a string hash (the
// shape of core.#ArtifactRef), with its path in the policies' notation. A reference is a
// claim about the workflow's recorded versions; core checks every one against the state,
// so that a version, hash or id in a context, a source list or a claim is believed only
// when the workflow recorded it. Sorted by path, never nil.
func Refs(v map[string]any) []any {
	out := []any{}
	walkRefs(v, "", &out)
	return out
}

func walkRefs(v any, path string, out *[]any) {
	walkJSON(v, path, func(path string, v any) {
		if m, ok := v.(map[string]any); ok {
			if ref, ok := refOf(m); ok {
				ref["path"] = path
				*out = append(*out, ref)
			}
		}
	})
}

// walkJSON calls fn with v and every value under it, objects' keys in sorted order, each
// with its path in the policies' notation (output.content.claims[2].text).
func walkJSON(v any, path string, fn func(path string, v any)) {
	fn(path, v)
	switch x := v.(type) {
	case map[string]any:
		for _, k := range SortedKeys(x) {
			walkJSON(x[k], joinKey(path, k), fn)
		}
	case []any:
		for i, e := range x {
			walkJSON(e, path+"["+strconv.Itoa(i)+"]", fn)
		}
	}
}

// joinKey is the path of key k of the object at path.
func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// refOf reads an object as an artifact reference: {id, type, version, hash} with the types
// of core.#ArtifactRef (other keys may stand beside them).
func refOf(m map[string]any) (map[string]any, bool) {
	id, ok1 := m["id"].(string)
	typ, ok2 := m["type"].(string)
	hash, ok3 := m["hash"].(string)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	var version any
	switch n := m["version"].(type) {
	case json.Number:
		if _, err := n.Int64(); err != nil {
			return nil, false
		}
		version = n
	case float64:
		if n != float64(int64(n)) {
			return nil, false
		}
		version = n
	case int:
		version = n
	default:
		return nil, false
	}
	return map[string]any{"id": id, "type": typ, "version": version, "hash": hash}, true
}

// SortedKeys returns the keys of m in order: the walks visit objects deterministically.
// The slice is made at its size once (a walk calls it for every object of a request).
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
