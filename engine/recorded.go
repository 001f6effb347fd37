package engine

import (
	"sync"
	"sync/atomic"
)

// recordedListeners are the functions OnRecorded added, copied on every change so that a
// decision reads them without a lock.
type recordedListeners struct {
	mu  sync.Mutex
	fns atomic.Pointer[[]func(*Decision)]
}

// OnRecorded calls fn with every decision this engine records from now on
// (a block recorded in the audit stream included; a resent answer not), once the store
// holds it. fn is called on the decision's path, concurrently: it must be quick and must
// not block (a notifier queues the decision and returns), and must not change it. Decisions recorded by another
// process on the same store are not seen here.
func (e *Engine) OnRecorded(fn func(*Decision)) {
	l := &e.recorded
	l.mu.Lock()
	defer l.mu.Unlock()
	var fns []func(*Decision)
	if cur := l.fns.Load(); cur != nil {
		fns = append(fns, *cur...)
	}
	fns = append(fns, fn)
	l.fns.Store(&fns)
}

// announce gives a recorded decision to the OnRecorded listeners.
func (e *Engine) announce(d *Decision) {
	fns := e.recorded.fns.Load()
	if fns == nil {
		return
	}
	for _, fn := range *fns {
		fn(d)
	}
}
