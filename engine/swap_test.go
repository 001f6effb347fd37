package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toyBlockHandoffs blocks every handoff with a code of its own: a bundle that decides
// differently from toyAllow.
const toyBlockHandoffs = `package handoff.toy

import data.handoff.core

decision := core.decide(core.reasons, _proposal)

_proposal := {"outcome": "allow", "status_after": "OPEN"} if input.request.kind == "start"

else := {"outcome": "block", "status_after": input.state.status, "reasons": [{"code": "ROLE_NOT_ALLOWED", "message": "no handoffs in this bundle"}]} if input.request.kind == "handoff"

else := {"outcome": "allow", "status_after": input.state.status}
`

// Decisions made while the bundle is swapped again and again are each made by one of
// the two bundles, whole: the digest each records names the bundle whose outcome it has.
func TestSwapDeciderConcurrently(t *testing.T) {
	ctx := context.Background()
	e := openToy(t, toyAllow)
	allow := e.Decider()
	blockB := toyBundle(t, toyBlockHandoffs)
	block, err := NewDecider(ctx, DeciderOptions{Bundle: &blockB})
	require.NoError(t, err)
	require.NotEqual(t, allow.BundleDigest(), block.BundleDigest())
	submit(t, e, toyStart)

	const writers, swaps = 8, 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range swaps {
			next := allow
			if i%2 == 0 {
				next = block
			}
			e.SwapDecider(next)
		}
		close(stop)
	}()
	decisions := make([][]*Decision, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					if i > 0 {
						return
					}
				default:
				}
				// Evaluated, not submitted: every writer decides on version 1.
				d, err := e.Evaluate(ctx, []byte(toyHandoff(fmt.Sprintf("r-%d-%d", w, i), 1, "")))
				if !assert.NoError(t, err) {
					return
				}
				decisions[w] = append(decisions[w], d)
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, ds := range decisions {
		for _, d := range ds {
			switch d.Policy.BundleDigest {
			case allow.BundleDigest():
				assert.Equal(t, Allow, d.Outcome, "decided by the allowing bundle")
			case block.BundleDigest():
				assert.Equal(t, Block, d.Outcome, "decided by the blocking bundle")
				assert.Equal(t, []string{"ROLE_NOT_ALLOWED"}, d.Codes())
			default:
				t.Fatalf("a decision names bundle %s, neither of the two", d.Policy.BundleDigest)
			}
			seen[d.Policy.BundleDigest]++
		}
	}
	t.Logf("decisions per bundle: %v", seen)
}

// After a swap, every read of the bundle (packs, reasons, digest) and every decision is
// the new bundle's, and the swap returns the old one.
func TestSwapDeciderReplacesTheBundle(t *testing.T) {
	ctx := context.Background()
	e := openToy(t, toyAllow)
	allow := e.Decider()
	blockB := toyBundle(t, toyBlockHandoffs)
	block, err := NewDecider(ctx, DeciderOptions{Bundle: &blockB})
	require.NoError(t, err)
	submit(t, e, toyStart)

	assert.Same(t, allow, e.SwapDecider(block))
	assert.Same(t, block, e.Decider())
	d := submit(t, e, toyHandoff("r-h1", 1, ""))
	assert.Equal(t, Block, d.Outcome)
	assert.Equal(t, block.BundleDigest(), d.Policy.BundleDigest)
	// The recorded block is explained by the bundle that decided it.
	ex, err := e.Explain(ctx, d.DecisionID)
	require.NoError(t, err)
	assert.True(t, strings.Contains(fmt.Sprint(ex), "ROLE_NOT_ALLOWED"), "explanation: %v", ex)

	assert.Same(t, block, e.SwapDecider(allow))
	d = submit(t, e, toyHandoff("r-h2", 1, ""))
	assert.Equal(t, Allow, d.Outcome)
	assert.Equal(t, allow.BundleDigest(), d.Policy.BundleDigest)
}
