package scan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func scope(path, field, value string) map[string]any {
	return map[string]any{"path": path, "field": field, "value": value}
}

func TestScanScopes(t *testing.T) {
	fields := map[string]string{"tenant_id": "tenant_id", "organization_id": "organization_id", "subject_id": "subject_id"}
	tests := []struct {
		name   string
		req    map[string]any
		fields map[string]string
		want   []any
	}{{
		name: "the envelope's own fields are not listed",
		req:  map[string]any{"tenant_id": "t1", "organization_id": "o1", "subject_id": "s1", "kind": "handoff"},
		want: []any{},
	}, {
		name: "inside objects and lists, keys sorted",
		req: map[string]any{
			"tenant_id": "t1",
			"output": map[string]any{"content": map[string]any{
				"customer": map[string]any{"tenant_id": "t2", "name": "x"},
				"claims":   []any{map[string]any{"text": "a"}, map[string]any{"subject_id": "s9", "organization_id": "o2"}},
			}},
			"context": map[string]any{"organization_id": "o1"},
		},
		want: []any{
			scope("context.organization_id", "organization_id", "o1"),
			scope("output.content.claims[1].organization_id", "organization_id", "o2"),
			scope("output.content.claims[1].subject_id", "subject_id", "s9"),
			scope("output.content.customer.tenant_id", "tenant_id", "t2"),
		},
	}, {
		name: "only string values; other values are walked into",
		req: map[string]any{"report": map[string]any{
			"tenant_id":  json.Number("7"),
			"subject_id": map[string]any{"subject_id": "s2"},
			"rows":       []any{[]any{map[string]any{"organization_id": nil, "tenant_id": "t3"}}},
		}},
		want: []any{
			scope("report.rows[0][0].tenant_id", "tenant_id", "t3"),
			scope("report.subject_id.subject_id", "subject_id", "s2"),
		},
	}, {
		name: "keys are written as they are, like the policies' path notation",
		req:  map[string]any{"": map[string]any{"tenant_id": "t1"}, "a.b": map[string]any{"": map[string]any{"tenant_id": "t2"}}},
		want: []any{
			scope(".tenant_id", "tenant_id", "t1"),
			scope("a.b..tenant_id", "tenant_id", "t2"),
		},
	}, {
		name:   "only the fields of the table",
		req:    map[string]any{"context": map[string]any{"tenant_id": "t1", "region": "eu"}},
		fields: map[string]string{"region": "tenant_id"},
		want:   []any{scope("context.region", "region", "eu")},
	}, {
		name: "no request",
		req:  nil,
		want: []any{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.fields
			if f == nil {
				f = fields
			}
			assert.Equal(t, tt.want, Scopes(tt.req, f))
		})
	}
}

func TestScanScopesWithoutTable(t *testing.T) {
	var s *Scanner
	assert.Equal(t, []any{}, Scopes(map[string]any{"a": map[string]any{"tenant_id": "t"}}, s.ScopeFields()))
}
