package store

import (
	"context"
	"sync"
)

// calls tracks the calls in progress on a store so that Close waits for them and calls
// made after Close fail with ErrClosed.
type calls struct {
	mu     sync.Mutex
	closed bool
	active sync.WaitGroup
}

// begin registers a call in progress; end must follow when it returns nil.
func (c *calls) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.active.Add(1)
	return nil
}

func (c *calls) end() { c.active.Done() }

// close marks the store closed and waits for the calls in progress. It reports false
// when the store was closed already.
func (c *calls) close() bool {
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
