package engine

import (
	"container/list"
	"crypto/sha256"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// stateCacheSize and stateCacheBytes bound the workflows whose state is kept decoded:
// the few dozen being worked on, and 2 MiB of their snapshots (decoded, with its value
// as policies read it, a state takes several times its snapshot's size), the least
// recently used dropped first. A miss costs tens of microseconds (decode and convert);
// memory held for workflows nobody is deciding on is paid by every host. Most hits are
// a state read again right after it was written or read (a request's placeholders
// resolved, then the request decided).
const (
	stateCacheSize  = 64
	stateCacheBytes = 2 << 20
)

// stateCache keeps workflows' states decoded, with their values as policies read them,
// so that a request on a state already seen neither decodes nor converts it. An entry is
// found only by the hash of the exact snapshot bytes the store returned: several
// processes may write one store, so a version number alone proves nothing. Nothing may
// change a cached state: the pipeline folds a decision into a copy, and readers outside
// the engine get copies. It is safe for concurrent use.
type stateCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int // the snapshot bytes of the entries
	entries  map[stateKey]*list.Element
	lru      list.List // of *cachedState, most recently used first
}

type stateKey struct{ tenant, workflow string }

// cachedState is one workflow's state as of the snapshot whose bytes hash to sum.
type cachedState struct {
	key   stateKey
	sum   [sha256.Size]byte
	size  int // of the snapshot
	state *pipeline.State
	value ast.Value
}

func newStateCache(max, maxBytes int) *stateCache {
	return &stateCache{max: max, maxBytes: maxBytes, entries: map[stateKey]*list.Element{}}
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
// snapshot of size bytes hashes to sum.
func (c *stateCache) put(tenant, workflow string, sum [sha256.Size]byte, size int, st *pipeline.State, value ast.Value) {
	cs := &cachedState{key: stateKey{tenant, workflow}, sum: sum, size: size, state: st, value: value}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[cs.key]; ok {
		c.bytes -= el.Value.(*cachedState).size
		el.Value = cs
		c.lru.MoveToFront(el)
	} else {
		c.entries[cs.key] = c.lru.PushFront(cs)
	}
	c.bytes += size
	for c.lru.Len() > c.max || c.bytes > c.maxBytes && c.lru.Len() > 0 {
		last := c.lru.Back()
		old := last.Value.(*cachedState)
		delete(c.entries, old.key)
		c.bytes -= old.size
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
	c.put(tenant, workflow, sum, len(snap), st, v)
	return &cachedState{sum: sum, size: len(snap), state: st, value: v}, nil
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
// The decision is recorded whatever happens here: a state that does not convert is not
// kept, and the next request decodes the snapshot (and fails there if it must).
func (c *stateCache) committed(tenant, workflow string, snap []byte, next *pipeline.State) {
	v, err := pipeline.StateValue(next)
	if err != nil {
		return
	}
	c.put(tenant, workflow, sha256.Sum256(snap), len(snap), next, v)
}
