package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	for _, e := range newValidator(def, newCUEChecker(ctx)).validate(data) {
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

// TestValidateFromManyGoroutines validates from many goroutines at once, the first use
// (which compiles the schemas) included: run with -race.
func TestValidateFromManyGoroutines(t *testing.T) {
	e, err := Open(context.Background(), Options{InMemory: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	bodies := scenarioRequests(t)[:40]
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, body := range bodies {
				r := e.decodeRequest(body, time.Now())
				if r.value == nil {
					continue
				}
				for _, name := range e.contracts.packNames() {
					pc, err := e.contracts.pack(name)
					require.NoError(t, err)
					r.pack, r.validation = pc, nil
					e.validate(r)
					got[g] = append(got[g], fmt.Sprint(r.validation))
				}
			}
		}()
	}
	wg.Wait()
	for g := range got {
		assert.Equal(t, got[0], got[g], "goroutine %d", g)
	}
}
