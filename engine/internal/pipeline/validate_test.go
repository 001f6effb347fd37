package pipeline

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateFromManyGoroutines validates from many goroutines at once, the first use
// (which compiles the schemas) included: run with -race.
func TestValidateFromManyGoroutines(t *testing.T) {
	p := contractsOnly(t)
	bodies := scenarioRequests(t)[:40]
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, body := range bodies {
				req := p.Decode(body, nil)
				if !req.Decoded() {
					continue
				}
				for _, name := range p.contracts.PackNames() {
					got[g] = append(got[g], fmt.Sprint(validateAs(t, p, req, name)))
				}
			}
		}()
	}
	wg.Wait()
	for g := range got {
		assert.Equal(t, got[0], got[g], "goroutine %d", g)
	}
}
