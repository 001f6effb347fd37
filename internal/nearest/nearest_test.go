package nearest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"tenant", "tenant", 0}, {"tenant", "tenants", 1},
	} {
		assert.Equal(t, tc.want, Distance(tc.a, tc.b), "Distance(%q, %q)", tc.a, tc.b)
	}
}

func TestNames(t *testing.T) {
	names := []string{"review", "approval", "handoff", "start", "outcome"}
	assert.Equal(t, []string{"handoff", "review", "start"}, Names("handof", names, 3))
	assert.Equal(t, []string{"review", "approval", "handoff", "start", "outcome"}, names, "the caller's slice is left as it is")
	assert.Empty(t, Names("x", nil, 3))
}
