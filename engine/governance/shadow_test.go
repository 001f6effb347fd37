package governance

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff"
)

// TestShadowOfferNeverBlocks: with the queue full, Offer drops the decision and counts
// it instead of waiting; a stopped shadow takes nothing.
func TestShadowOfferNeverBlocks(t *testing.T) {
	s := &Shadow{queue: make(chan *handoff.Decision, 2), stop: make(chan struct{}), done: make(chan struct{})}
	close(s.done) // no worker: nothing leaves the queue
	for range 5 {
		s.Offer(&handoff.Decision{DecisionID: "d"})
	}
	assert.Equal(t, uint64(3), s.dropped.Load())
	assert.Equal(t, uint64(2), s.offered.Load())
	assert.Len(t, s.queue, 2)
	s.Stop()
	s.Offer(&handoff.Decision{DecisionID: "d"})
	assert.Equal(t, uint64(3), s.dropped.Load())
	assert.Len(t, s.queue, 2)
}

// TestShadowDifferences names what a disagreement is counted by.
func TestShadowDifferences(t *testing.T) {
	d := ShadowDisagreement{Fields: []string{"events", "outcome", "reasons"},
		Live:      ShadowSide{Outcome: handoff.Allow, Codes: []string{"A", "B", "B"}, Next: []ShadowNext{{Agent: "x", Task: "t"}}},
		Candidate: ShadowSide{Outcome: handoff.Block, Codes: []string{"B", "C"}, Next: []ShadowNext{}}}
	assert.Equal(t, []string{"A", "B", "C", "outcome:allow->block", "next"}, d.Differences())
	same := ShadowDisagreement{Fields: []string{"events"}, Live: ShadowSide{Outcome: handoff.Allow}, Candidate: ShadowSide{Outcome: handoff.Allow}}
	assert.Equal(t, []string{"field:events"}, same.Differences())
}

// TestShadowLogFilters reads the disagreements of one tenant and pack back.
func TestShadowLogFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shadow.ndjson")
	s, err := NewShadow(nil, nil, ShadowOptions{Log: path})
	require.NoError(t, err)
	for _, d := range []ShadowDisagreement{{Tenant: "a", Pack: "x", DecisionID: "1"}, {Tenant: "b", Pack: "x", DecisionID: "2"}, {Tenant: "a", Pack: "y", DecisionID: "3"}} {
		require.NoError(t, s.append(d))
	}
	require.NoError(t, s.Close())
	var ids []string
	require.NoError(t, ReadShadowLog(path, "a", "", func(d ShadowDisagreement) error { ids = append(ids, d.DecisionID); return nil }))
	assert.Equal(t, []string{"1", "3"}, ids)
	ids = nil
	require.NoError(t, ReadShadowLog(path, "", "x", func(d ShadowDisagreement) error { ids = append(ids, d.DecisionID); return nil }))
	assert.Equal(t, []string{"1", "2"}, ids)
}
