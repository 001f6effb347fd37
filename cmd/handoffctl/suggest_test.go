package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	flags := []string{"tenant", "audit", "store", "db", "bundle", "o", "server", "read-only", "quiet"}
	for _, tc := range []struct{ word, want string }{
		{"tenat", "tenant"},
		{"tennat", "tenant"},
		{"teant", "tenant"},
		{"Tenant", "tenant"},
		{"aduit", "audit"},
		{"readonly", "read-only"},
		{"ten", "tenant"},
		{"bogus", ""},
		{"x", ""},
		{"servers", "server"},
	} {
		assert.Equal(t, tc.want, closest(tc.word, flags), "closest(%q)", tc.word)
	}
	assert.Equal(t, "verify", closest("verfiy", commandNames()))
	assert.Equal(t, "submit", closest("sumbit", commandNames()))
	assert.Equal(t, "", closest("frobnicate", commandNames()))
}
