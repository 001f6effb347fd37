package scan

import (
	"maps"
	"slices"
	"strconv"
)

// Scopes finds, once per request, every scope field inside the request body: each
// object key named in the core table scope_fields (tenant_id, organization_id,
// subject_id) that stands below the top level of the request with a string value. The
// policy compares each against the workflow state (SCOPE_MISMATCH); it reads them as
// input.derived.scopes, [{path, field, value}], path in the policies' notation
// (output.content.claims[2].tenant_id). The envelope's own top-level fields are not
// listed: core checks those by name. Sorted by path within each object, never nil.
func Scopes(v map[string]any, fields map[string]string) []any {
	out := []any{}
	if len(fields) == 0 {
		return out
	}
	for _, k := range slices.Sorted(maps.Keys(v)) {
		scopeWalk(v[k], k, fields, &out)
	}
	return out
}

// ScopeFields is the scanner's scope_fields table; nil without a scanner.
func (s *Scanner) ScopeFields() map[string]string {
	if s == nil {
		return nil
	}
	return s.scopeFields
}

// scopeWalk looks for scope fields in v, the value at path (never the request itself,
// so every key it meets is below the top level).
func scopeWalk(v any, path string, fields map[string]string, out *[]any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := path + "." + k
			if s, ok := x[k].(string); ok {
				if _, named := fields[k]; named {
					*out = append(*out, map[string]any{"path": p, "field": k, "value": s})
				}
				continue
			}
			scopeWalk(x[k], p, fields, out)
		}
	case []any:
		for i, e := range x {
			scopeWalk(e, path+"["+strconv.Itoa(i)+"]", fields, out)
		}
	}
}
