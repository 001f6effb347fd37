package contract

import (
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/stretchr/testify/assert"
)

func TestValidateListsEveryErrorWithItsPath(t *testing.T) {
	ctx := cuecontext.New()
	v := ctx.CompileString(`
#R: {a?: {b!: int}, c!: string, m?: [string]: {x!: int}, l?: [...{y!: string}]}
#Rs: {k: #R & {d?: int}}`)
	def := v.LookupPath(cue.ParsePath("#Rs.k"))
	data := map[string]any{
		"a":     map[string]any{"z": 1},
		"m":     map[string]any{"q": map[string]any{"w": 1}},
		"l":     []any{map[string]any{"y": "ok"}, map[string]any{}},
		"extra": true,
		"d":     "not an int",
	}
	got := map[string]string{}
	for _, e := range NewValidator(def, NewChecker(ctx)).Validate(data) {
		got[e.Path] = e.Code
	}
	assert.Equal(t, map[string]string{
		"a.z":    "UNKNOWN_FIELD",
		"a.b":    "SCHEMA_INVALID",
		"c":      "SCHEMA_INVALID",
		"m.q.w":  "UNKNOWN_FIELD",
		"m.q.x":  "SCHEMA_INVALID",
		"l[1].y": "SCHEMA_INVALID",
		"extra":  "UNKNOWN_FIELD",
		"d":      "SCHEMA_INVALID",
	}, got)
}
