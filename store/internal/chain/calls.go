package chain

import (
	"context"
	"sync"

	"github.com/handoff-dev/handoff/store"
)

// Calls tracks the calls in progress on a store so that Close waits for them and calls
// made after Close fail with ErrClosed.
type Calls struct {
	mu     sync.Mutex
	closed bool
	active sync.WaitGroup
}

// Begin registers a call in progress; end must follow when it returns nil.
func (c *Calls) Begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return store.ErrClosed
	}
	c.active.Add(1)
	return nil
}

func (c *Calls) End() { c.active.Done() }

// Close marks the store closed and waits for the calls in progress. It reports false
// when the store was closed already.
func (c *Calls) Close() bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.closed = true
	c.mu.Unlock()
	c.active.Wait()
	return true
}
