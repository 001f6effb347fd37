package scan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWalkPath(t *testing.T) {
	v := map[string]any{"a": map[string]any{"b.c": []any{map[string]any{"d": "x"}, "y"}}, "e": "z"}
	for path, want := range map[string]any{"a.b.c[0].d": "x", "a.b.c[1]": "y", "e": "z"} {
		var got any
		require.True(t, walkPath(v, path, func(_ string, at any) { got = at }), path)
		assert.Equal(t, want, got, path)
	}
	for _, path := range []string{"", "a.x", "a.b.c[2]", "e[0]", "a.b.c[x]"} {
		assert.False(t, walkPath(v, path, func(string, any) {}), path)
	}
}
