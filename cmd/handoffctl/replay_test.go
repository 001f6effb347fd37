package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/handoff-dev/handoff/engine"
)

func TestReasonsMinus(t *testing.T) {
	a := engine.Reason{Code: "A", Path: "x", Message: "m"}
	aMoved := engine.Reason{Code: "A", Path: "y", Message: "m"}
	aReworded := engine.Reason{Code: "A", Path: "x", Message: "n"}
	b := engine.Reason{Code: "B"}
	tests := []struct {
		name          string
		before, after []engine.Reason
		added         []string
		removed       []string
	}{
		{"same", []engine.Reason{a, b}, []engine.Reason{b, a}, []string{}, []string{}},
		{"code replaced", []engine.Reason{a}, []engine.Reason{b}, []string{"B"}, []string{"A"}},
		{"moved to another field", []engine.Reason{a}, []engine.Reason{aMoved}, []string{"A"}, []string{"A"}},
		{"reworded", []engine.Reason{a}, []engine.Reason{aReworded}, []string{"A"}, []string{"A"}},
		{"a second reason with the code", []engine.Reason{a}, []engine.Reason{a, aMoved}, []string{"A"}, []string{}},
		{"one of two left", []engine.Reason{a, a}, []engine.Reason{a}, []string{}, []string{"A"}},
		{"none recorded", nil, []engine.Reason{b}, []string{"B"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.added, reasonCodes(reasonsMinus(tt.after, tt.before)), "added")
			assert.Equal(t, tt.removed, reasonCodes(reasonsMinus(tt.before, tt.after)), "removed")
		})
	}
}

func TestReplayCodesSummary(t *testing.T) {
	rep := replayReport{}
	rep.group([]replayChange{
		{OutcomeBefore: engine.Block, OutcomeAfter: engine.Allow, ReasonsRemoved: []string{"A"}, ReasonsAdded: []string{}},
		{OutcomeBefore: engine.Allow, OutcomeAfter: engine.Block, ReasonsAdded: []string{"A", "B"}, ReasonsRemoved: []string{}},
		{OutcomeBefore: engine.Block, OutcomeAfter: engine.Block, ReasonsAdded: []string{"C"}, ReasonsRemoved: []string{"A"}},
	})
	assert.Equal(t, []replayCode{{"A", 1, 2}, {"B", 1, 0}, {"C", 1, 0}}, rep.Codes)
	assert.Equal(t, 3, rep.Changed)
	assert.Equal(t, 2, rep.Flips)
	assert.Equal(t, 1, rep.Loosened)
}
