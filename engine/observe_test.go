package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/handoff-dev/handoff/engine"
)

// stageCounter is an Observer that counts what it is told.
type stageCounter struct {
	mu      sync.Mutex
	stages  map[string]int
	commits int
}

func (c *stageCounter) Stage(stage string, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stages[stage]++
}

func (c *stageCounter) GroupCommit(appends int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.commits += appends
}

// A submit is one span with a child span per stage, labelled with the request's
// trace_id; an Observer hears every stage and the group commit.
func TestSubmitIsTracedAndObserved(t *testing.T) {
	ctx := context.Background()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	obs := &stageCounter{stages: map[string]int{}}
	e, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), TracerProvider: tp, Observer: obs, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()

	d, err := e.Submit(ctx, []byte(explainStart))
	require.NoError(t, err)
	_, err = e.Evaluate(ctx, []byte(explainCancel("req-c1", "sam.intern", "viewer")))
	require.NoError(t, err)

	spans := exp.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	submit, ok := byName["handoff.submit"]
	require.True(t, ok, "spans %v", spans)
	attrs := map[string]string{}
	for _, a := range submit.Attributes {
		attrs[string(a.Key)] = a.Value.Emit()
	}
	assert.Equal(t, "trace-1", attrs["handoff.trace_id"])
	assert.Equal(t, d.DecisionID, attrs["handoff.decision_id"])
	assert.Equal(t, "allow", attrs["handoff.outcome"])
	assert.Contains(t, byName, "handoff.evaluate")
	for _, stage := range []string{engine.StageDecode, engine.StageValidate, engine.StagePolicy, engine.StageCommit} {
		found := false
		for _, s := range spans {
			if s.Name == stage && s.Parent.SpanID() == submit.SpanContext.SpanID() {
				found = true
			}
		}
		assert.True(t, found, "no %s span under the submit's", stage)
	}
	assert.Equal(t, map[string]int{"decode": 2, "validate": 2, "policy": 2, "commit": 1}, obs.stages, "a submit and a dry run")
	assert.Equal(t, 1, obs.commits, "one append, in one group commit")
}
