package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
				r := e.decider.decodeRequest(body, time.Now())
				if r.value == nil {
					continue
				}
				for _, name := range e.decider.contracts.PackNames() {
					pc, err := e.decider.contracts.Pack(name)
					require.NoError(t, err)
					r.pack, r.validation = pc, nil
					e.decider.validate(r)
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
