package engine

import (
	"context"
	"time"
)

type timeKey struct{}

// WithTime returns a context under which Submit, Evaluate and EvaluateExplain decide at
// t instead of Options.Clock: the decision's decided_at and the policies' input.now are
// t. Scenario files use it to play deadlines and expiries step by step on a real store;
// a host keeps its own clock in Options.Clock.
func WithTime(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, timeKey{}, t)
}

// now is the time a request is decided at: the context's (WithTime), else the clock's.
func (e *Engine) now(ctx context.Context) time.Time {
	if t, ok := ctx.Value(timeKey{}).(time.Time); ok {
		return t
	}
	return e.opts.Clock()
}
