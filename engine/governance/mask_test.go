package governance

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEraseAtListWildcard(t *testing.T) {
	content := map[string]any{"assessments": []any{
		map[string]any{"items": []any{map[string]any{"note": "first", "id": "a"}, map[string]any{"id": "b"}}},
		map[string]any{"items": []any{map[string]any{"note": "second"}}},
	}}
	got := eraseAt(content, []string{"assessments[*]", "items[*]", "note"}, []string{"c"})
	var at []string
	for _, e := range got {
		at = append(at, pointer(e.at))
	}
	assert.Equal(t, []string{"/c/assessments/0/items/0/note", "/c/assessments/1/items/0/note"}, at)
	assert.Equal(t, map[string]any{"assessments": []any{
		map[string]any{"items": []any{map[string]any{"id": "a"}, map[string]any{"id": "b"}}},
		map[string]any{"items": []any{map[string]any{}}},
	}}, content)
}

func TestEraseValuesFollowsASensitiveValue(t *testing.T) {
	result := map[string]any{"next": []any{map[string]any{"context": map[string]any{
		"must_know": map[string]any{"message": map[string]any{"untrusted_data": "my card is 4111"}, "channel": "chat"},
		"list":      []any{"my card is 4111", "kept"},
	}}}}
	got := eraseValues(result, map[string]bool{"my card is 4111": true}, []string{"result"})
	assert.ElementsMatch(t, []string{"/result/next/0/context/must_know/message/untrusted_data", "/result/next/0/context/list/0"}, got)
	assert.Equal(t, map[string]any{"next": []any{map[string]any{"context": map[string]any{
		"must_know": map[string]any{"message": map[string]any{}, "channel": "chat"},
		"list":      []any{nil, "kept"},
	}}}}, result)
}
