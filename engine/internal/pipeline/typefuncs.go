package pipeline

import (
	"reflect"
	"sync"
)

// typeFuncs caches one function per type (an encoder, a decoder), built once: the
// field plans of a type are worked out on its first value only.
type typeFuncs[F any] struct {
	m sync.Map // reflect.Type → F
}

// get returns t's function, building it with build the first time. A recursive type
// reaches itself while its function is built: it is given forward(built), which calls
// the function once built returns it.
func (c *typeFuncs[F]) get(t reflect.Type, build func(reflect.Type) F, forward func(built func() F) F) F {
	if f, ok := c.m.Load(t); ok {
		return f.(F)
	}
	var (
		wg sync.WaitGroup
		f  F
	)
	wg.Add(1)
	if prev, loaded := c.m.LoadOrStore(t, forward(func() F { wg.Wait(); return f })); loaded {
		return prev.(F)
	}
	f = build(t)
	wg.Done()
	c.m.Store(t, f)
	return f
}
