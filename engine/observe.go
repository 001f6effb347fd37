package engine

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// The stages of a decision, as Observer.Stage names them and as their spans are named.
const (
	StageDecode   = "decode"               // strict decode, the principal check, the idempotency and routing reads
	StageValidate = pipeline.StageValidate // contract validation and the derived facts
	StagePolicy   = pipeline.StagePolicy   // the Rego evaluation and the checks of its result
	StageCommit   = "commit"               // the durable write
)

// Observer receives what the engine measures while it decides: a service exports it as
// metrics. Its methods are called concurrently, on the decision's path: they must be
// quick and must not block.
type Observer interface {
	// Stage reports how long one stage of one decision took.
	Stage(stage string, took time.Duration)
	// GroupCommit reports how many appends one durable store transaction held.
	GroupCommit(appends int)
}

// observerBox lets an observer be set after Open.
type observerBox struct{ Observer }

// SetObserver sends the engine's measurements to o from now on (nil: to nobody). A
// service that serves the engine sets its metrics here.
func (e *Engine) SetObserver(o Observer) {
	e.observer.Store(&observerBox{o})
}

func (e *Engine) observe() Observer {
	if b := e.observer.Load(); b != nil {
		return b.Observer
	}
	return nil
}

// decisionSpan starts the span of one decision, with the request's trace_id as an
// attribute once it is known (a request's trace_id is its own correlation id, not a
// W3C trace id).
func (e *Engine) decisionSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	return e.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
}

// endDecisionSpan labels a decision's span with what it decided: never the request's
// content.
func endDecisionSpan(span trace.Span, d *Decision, err error) {
	if d != nil {
		span.SetAttributes(
			attribute.String("handoff.trace_id", d.TraceID),
			attribute.String("handoff.decision_id", d.DecisionID),
			attribute.String("handoff.pack", d.Pack),
			attribute.String("handoff.outcome", string(d.Outcome)),
			attribute.Bool("handoff.recorded", d.Recorded),
		)
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// stages times the stages of one decision: a child span each, and Observer.Stage. A
// nil *stages times nothing (replay, explain, the Decider alone).
type stages struct {
	ctx    context.Context
	tracer trace.Tracer
	obs    Observer
}

func (e *Engine) stages(ctx context.Context) *stages {
	return &stages{ctx: ctx, tracer: e.tracer, obs: e.observe()}
}

// start begins a stage; the function it returns ends it.
func (s *stages) start(name string) func() {
	if s == nil {
		return func() {}
	}
	began := time.Now()
	_, span := s.tracer.Start(s.ctx, name)
	return func() {
		span.End()
		if s.obs != nil {
			s.obs.Stage(name, time.Since(began))
		}
	}
}

// noopTracer traces nothing: the default without Options.TracerProvider.
var noopTracer = noop.NewTracerProvider().Tracer("")

// observerSlot is the engine's observer, settable after Open.
type observerSlot = atomic.Pointer[observerBox]
