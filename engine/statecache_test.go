package engine

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

func TestStateCacheFindsOnlyTheSameBytes(t *testing.T) {
	c := newStateCache(8, 1<<20)
	snap := []byte(`{"workflow_id":"wf","tenant_id":"acme","pack":"p","subject_id":"s","status":"A","terminal":false,"state_version":3}`)
	cs, err := c.decoded("acme", "wf", snap)
	require.NoError(t, err)
	require.Equal(t, uint64(3), cs.state.StateVersion)
	again, err := c.decoded("acme", "wf", snap)
	require.NoError(t, err)
	require.Same(t, c.get("acme", "wf", sha256.Sum256(snap)).state, again.state)
	// The same version written by another process, with other bytes, is another state.
	other := []byte(`{"workflow_id":"wf","tenant_id":"acme","pack":"p","subject_id":"s","status":"B","terminal":false,"state_version":3}`)
	require.Nil(t, c.get("acme", "wf", sha256.Sum256(other)))
	cs, err = c.decoded("acme", "wf", other)
	require.NoError(t, err)
	require.Equal(t, "B", cs.state.Status)
	// Another tenant's workflow of the same id and bytes is not found.
	require.Nil(t, c.get("other", "wf", sha256.Sum256(other)))
}

func TestStateCacheIsBounded(t *testing.T) {
	st := pipeline.NewState("wf", "acme", "", "p", "s", "A", "now")
	c := newStateCache(3, 100)
	sum := func(i int) [sha256.Size]byte { return sha256.Sum256(fmt.Appendf(nil, "%d", i)) }
	for i := range 5 {
		c.put("acme", fmt.Sprint(i), sum(i), 10, st, nil)
	}
	require.Equal(t, 3, c.lru.Len())
	require.Nil(t, c.get("acme", "0", sum(0)))
	require.Nil(t, c.get("acme", "1", sum(1)))
	require.NotNil(t, c.get("acme", "2", sum(2))) // now the most recently used
	c.put("acme", "big", sum(9), 85, st, nil)
	require.Equal(t, 2, c.lru.Len(), "95 bytes of 100 leave room for one more entry of 10")
	require.NotNil(t, c.get("acme", "2", sum(2)))
	require.Nil(t, c.get("acme", "3", sum(3)))
	require.Equal(t, 95, c.bytes)
	c.put("acme", "huge", sum(10), 101, st, nil)
	require.Zero(t, c.lru.Len())
	require.Zero(t, c.bytes)
	require.Empty(t, c.entries)
}

func TestStateCacheConcurrentUse(t *testing.T) {
	c := newStateCache(4, 1<<20)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				snap := fmt.Appendf(nil, `{"workflow_id":"wf%d","tenant_id":"acme","state_version":%d}`, i%6, g)
				cs, err := c.decoded("acme", fmt.Sprintf("wf%d", i%6), snap)
				if err != nil || cs.state.StateVersion != uint64(g) {
					t.Errorf("%v %v", err, cs)
				}
			}
		})
	}
	wg.Wait()
	require.LessOrEqual(t, c.lru.Len(), 4)
}
