package engine

import (
	"container/list"
	"crypto/sha256"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// stateCacheSize bounds the workflows whose state is kept decoded: a few thousand
// states of a few kilobytes each (their values as policies read them about as much
// again), the least recently used dropped first.
const stateCacheSize = 4096

// stateCache keeps workflows' states decoded, with their values as policies read them,
// so that a request on a state already seen neither decodes nor converts it. An entry is
// found only by the hash of the exact snapshot bytes the store returned: several
// processes may write one store, so a version number alone proves nothing. Nothing may
// change a cached state: the pipeline folds a decision into a copy, and readers outside
// the engine get copies. It is safe for concurrent use.
type stateCache struct {
	mu      sync.Mutex
	max     int
	entries map[stateKey]*list.Element
	lru     list.List // of *cachedState, most recently used first
}

type stateKey struct{ tenant, workflow string }

// cachedState is one workflow's state as of the snapshot whose bytes hash to sum.
type cachedState struct {
	key   stateKey
	sum   [sha256.Size]byte
	state *pipeline.State
	value ast.Value
}

func newStateCache(max int) *stateCache {
	return &stateCache{max: max, entries: map[stateKey]*list.Element{}}
}

// get returns the cached state of a workflow whose snapshot hashes to sum; nil when the
// cache holds none or another.
func (c *stateCache) get(tenant, workflow string, sum [sha256.Size]byte) *cachedState {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[stateKey{tenant, workflow}]
	if !ok {
		return nil
	}
	cs := el.Value.(*cachedState)
	if cs.sum != sum {
		return nil
	}
	c.lru.MoveToFront(el)
	return cs
}

// put keeps st, which no one may change any more, as the workflow's state whose
// snapshot hashes to sum.
func (c *stateCache) put(tenant, workflow string, sum [sha256.Size]byte, st *pipeline.State, value ast.Value) {
	cs := &cachedState{key: stateKey{tenant, workflow}, sum: sum, state: st, value: value}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[cs.key]; ok {
		el.Value = cs
		c.lru.MoveToFront(el)
		return
	}
	c.entries[cs.key] = c.lru.PushFront(cs)
	for c.lru.Len() > c.max {
		last := c.lru.Back()
		delete(c.entries, last.Value.(*cachedState).key)
		c.lru.Remove(last)
	}
}

// decoded is the state of a snapshot the store returned, decoded and converted once.
func (c *stateCache) decoded(tenant, workflow string, snap []byte) (*cachedState, error) {
	sum := sha256.Sum256(snap)
	if cs := c.get(tenant, workflow, sum); cs != nil {
		return cs, nil
	}
	st, err := pipeline.DecodeState(snap)
	if err != nil {
		return nil, err
	}
	v, err := pipeline.StateValue(st)
	if err != nil {
		return nil, err
	}
	c.put(tenant, workflow, sum, st, v)
	return &cachedState{sum: sum, state: st, value: v}, nil
}

// read is the state of a snapshot the store returned, for reading: the cached one
// (which the caller must not change) or, on a miss, one decoded for the caller, the
// cache left as it is so that listing many workflows does not crowd out those being
// decided.
func (c *stateCache) read(tenant, workflow string, snap []byte) (st *pipeline.State, cached bool, err error) {
	if cs := c.get(tenant, workflow, sha256.Sum256(snap)); cs != nil {
		return cs.state, true, nil
	}
	st, err = pipeline.DecodeState(snap)
	return st, false, err
}

// committed keeps next, the state a decision left a workflow in, once the store holds
// its snapshot, snap. No one may change next any more: it shares nothing with the
// decision (Fold copies what it takes from it) nor with the state it was folded into.
func (c *stateCache) committed(tenant, workflow string, snap []byte, next *pipeline.State) error {
	v, err := pipeline.StateValue(next)
	if err != nil {
		return err
	}
	c.put(tenant, workflow, sha256.Sum256(snap), next, v)
	return nil
}
