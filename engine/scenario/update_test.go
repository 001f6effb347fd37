package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

func TestRewrite(t *testing.T) {
	const compact = `{"name": "s", "pack": "campaign",
 "steps": [
  {"name": "a", "request": {"kind": "start"}, "expect": {"outcome": "allow", "reasons": [], "status_after": "RESEARCH"}},
  {"name": "b", "request": {"kind": "cancel"}, "expect": {"outcome": "block", "reasons": ["B_CODE", "A_CODE"]}},
  {"name": "c", "request": {"kind": "cancel"}, "expect": {"outcome": "block"}}
 ]}
`
	const pretty = `{
  "name": "s",
  "steps": [
    {
      "name": "a",
      "request": {"kind": "start"},
      "expect": {
        "outcome": "allow",
        "reasons": [],
        "next": [
          "research_agent"
        ],
        "state_version": 1
      }
    }
  ]
}
`
	block := func(codes ...string) *engine.Decision {
		d := &engine.Decision{Outcome: engine.Block, StatusAfter: "INTAKE"}
		for _, c := range codes {
			d.Reasons = append(d.Reasons, engine.Reason{Code: c})
		}
		return d
	}
	tests := []struct {
		name    string
		data    string
		results []Result
		want    string
		changed bool
	}{
		{
			name: "nothing to change keeps the file, the order of its codes too",
			data: compact,
			results: []Result{
				{Step: 1, Decision: &engine.Decision{Outcome: engine.Allow, StatusAfter: "RESEARCH"}},
				{Step: 2, Decision: block("A_CODE", "B_CODE")},
				{Step: 3, Decision: block()},
			},
			want: compact,
		},
		{
			name: "one line stays one line; a field the step leaves out stays out, reasons are added",
			data: compact,
			results: []Result{
				{Step: 1, Decision: block("Z_CODE", "Y_CODE", "Z_CODE")},
				{Step: 2, Decision: block("A_CODE")},
				{Step: 3, Decision: block("C_CODE")},
			},
			want: `{"name": "s", "pack": "campaign",
 "steps": [
  {"name": "a", "request": {"kind": "start"}, "expect": {"outcome": "block", "reasons": ["Y_CODE", "Z_CODE"], "status_after": "INTAKE"}},
  {"name": "b", "request": {"kind": "cancel"}, "expect": {"outcome": "block", "reasons": ["A_CODE"]}},
  {"name": "c", "request": {"kind": "cancel"}, "expect": {"outcome": "block", "reasons": ["C_CODE"]}}
 ]}
`,
			changed: true,
		},
		{
			name: "several lines stay several lines",
			data: pretty,
			results: []Result{
				{Step: 1, Decision: &engine.Decision{Outcome: engine.Block, StateVersion: 0, Reasons: []engine.Reason{{Code: "X"}}}},
			},
			want: `{
  "name": "s",
  "steps": [
    {
      "name": "a",
      "request": {"kind": "start"},
      "expect": {
        "outcome": "block",
        "reasons": [
          "X"
        ],
        "next": [],
        "state_version": 0
      }
    }
  ]
}
`,
			changed: true,
		},
		{
			name: "next agents follow the decision",
			data: pretty,
			results: []Result{
				{Step: 1, Decision: &engine.Decision{Outcome: engine.Allow, StateVersion: 1, Next: []engine.Next{{Agent: "b_agent"}, {Agent: "a_agent"}}}},
			},
			want: `{
  "name": "s",
  "steps": [
    {
      "name": "a",
      "request": {"kind": "start"},
      "expect": {
        "outcome": "allow",
        "reasons": [],
        "next": [
          "b_agent",
          "a_agent"
        ],
        "state_version": 1
      }
    }
  ]
}
`,
			changed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := Rewrite([]byte(tt.data), tt.results)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, tt.changed, changed)
			_, err = Parse(got)
			require.NoError(t, err, "the rewritten file parses")
		})
	}
}
