package console

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDiffLines(t *testing.T) {
	a := []string{"{", `"a": 1,`, `"b": 2,`, `"c": 3`, "}"}
	b := []string{"{", `"a": 1,`, `"b": 20,`, `"c": 3,`, `"d": 4`, "}"}
	got := diffLines(a, b)
	assert.Equal(t, []diffLine{
		{" ", "{"}, {" ", `"a": 1,`}, {"-", `"b": 2,`}, {"-", `"c": 3`},
		{"+", `"b": 20,`}, {"+", `"c": 3,`}, {"+", `"d": 4`}, {" ", "}"},
	}, got)
	assert.Equal(t, 5, changed(got))
	assert.Empty(t, diffLines(nil, nil))
	assert.Equal(t, 0, changed(diffLines(a, a)))
}

func TestContentLinesKeepMarkupAsWritten(t *testing.T) {
	lines := contentLines(map[string]any{"notes": "<b>&</b>", "a": []any{1}})
	assert.Equal(t, []string{"{", `  "a": [`, "    1", "  ],", `  "notes": "<b>&</b>"`, "}"}, lines)
}
