package pipeline

import (
	"context"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/policy"
)

// Input is everything one decision depends on: the decoded request (bound to who sent
// it), the workflow state it is decided on, what the store knows of it, and the time.
type Input struct {
	// Request is the request, as Decode or Recorded returned it.
	Request *Request
	// State is the workflow's state. For a start it is nil (Decide builds the state the
	// start creates) unless Start is set.
	State *State
	// StateValue is State as policies read it (StateValue(State)), when the caller has
	// it; nil has it converted.
	StateValue ast.Value
	// Start says State is the state a start creates, rebuilt by the caller (replay).
	Start bool
	// Facts are what the store answered about the request.
	Facts Facts
	// Now is the decision's time: input.now of the policies and decided_at.
	Now time.Time
	// DecisionID is the decision's id.
	DecisionID string
}

// Facts are the store's answers about a request, read before it is decided.
type Facts struct {
	// KeyReused: the request_id is recorded for another request.
	KeyReused bool
	// WorkflowExists: the workflow id a start names is taken.
	WorkflowExists bool
	// Foreign: the workflow belongs to another tenant; its state was not read.
	Foreign bool
	// Routing are the errors the request's routing found when it was first decided:
	// replay decides a recorded start again on the workflow id it was given.
	Routing []ValidationError
}

// Option changes how one Decide call evaluates, as OPA's EvalOption does for a query.
type Option func(*options)

type options struct {
	timeout time.Duration
	explain bool
	derived map[string]any
	stage   func(name string) func()
}

// WithTimeout is the deadline of the policy evaluation; zero keeps the pipeline's. A
// recorded decision is evaluated again on whatever machine replays it: the deadline
// there is the caller's.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithExplain traces the evaluation with rule indexing off (so every rule is checked,
// and reported) and explains the decision.
func WithExplain() Option { return func(o *options) { o.explain = true } }

// WithDerived decides on derived values given (replay keeps some recorded ones)
// instead of deriving them from the request.
func WithDerived(d map[string]any) Option { return func(o *options) { o.derived = d } }

// WithStages times the stages: stage(name) is called as one starts and the function it
// returns as it ends.
func WithStages(stage func(name string) func()) Option {
	return func(o *options) { o.stage = stage }
}

// The stages WithStages reports.
const (
	StageValidate = "validate" // contract validation and the derived facts
	StagePolicy   = "policy"   // the Rego evaluation and the checks of its result
)

func (o *options) start(name string) func() {
	if o.stage == nil {
		return func() {}
	}
	return o.stage(name)
}

// flight is one request on its way through Decide: where it was routed, what the
// stages found. It lives for one call.
type flight struct {
	req        *Request
	decisionID string
	now        time.Time
	tenant     string
	workflow   string
	pack       *contract.Pack // nil when the request cannot be routed to a pack
	state      *State         // nil when no workflow could be loaded
	stateValue ast.Value      // state as policies read it; nil until converted
	create     bool           // a start that would create the workflow
	audit      bool           // recorded in the security audit stream, not a workflow log
	mismatch   bool           // the request is not its authenticated principal's
	validation []ValidationError
	derived    map[string]any
	// redacted is the copy of the request the log records when the decision carries a
	// redaction code; unrecordable is set when no safe copy exists.
	redacted     map[string]any
	redaction    *Redaction
	unrecordable error
}

// refuse records a validation error found before the policy and sends the request to
// its tenant's security audit stream.
func (f *flight) refuse(ve ValidationError) {
	f.validation = append(f.validation, ve)
	f.audit = true
}

// Decide decides one request: route it to the state it is given, validate it, derive,
// evaluate its pack's policy, settle the decision under the engine's invariants and
// redact. A block is a Decision, not an error: the error is non-nil only when no
// decision could be made (the bundle failed to compile a pack, an id could not be
// drawn).
func (p *Pipeline) Decide(ctx context.Context, in Input, opts ...Option) (*Result, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	f := &flight{req: in.Request, decisionID: in.DecisionID, now: in.Now, workflow: in.Request.workflow}
	if err := p.route(f, in); err != nil {
		return nil, err
	}
	end := o.start(StageValidate)
	f.validation = append(f.validation, p.validate(f)...)
	f.derived = o.derived
	if f.derived == nil {
		f.derived = derive(f.req.value, len(f.req.body), f.req.digest, p.contracts.Scanner)
	}
	end()
	var tr *ruleTracer
	if o.explain {
		tr = &ruleTracer{entered: map[string]*ast.Rule{}, exited: map[string]bool{}}
	}
	end = o.start(StagePolicy)
	d, entrypoint := p.evaluate(ctx, f, o.timeout, tr)
	next := p.settle(f, d, entrypoint)
	if f.mismatch {
		d.MarkIdentityMismatch()
	}
	end()
	res := &Result{Decision: d, Next: p.redact(f, d, next), flight: f}
	if tr != nil {
		res.Explanation = p.explanation(f, tr, entrypoint)
	}
	return res, nil
}

// Validate routes a request and checks it against its contract, as Decide does before
// the policy, and lists every error with its path; none means valid. The policy is
// not asked.
func (p *Pipeline) Validate(in Input) ([]ValidationError, error) {
	f := &flight{req: in.Request, now: in.Now, workflow: in.Request.workflow}
	if err := p.route(f, in); err != nil {
		return nil, err
	}
	return append(f.validation, p.validate(f)...), nil
}

// PolicyInput runs the stages before the policy and returns the entrypoint the request
// is routed to and the input document it would be evaluated on.
func (p *Pipeline) PolicyInput(in Input) (string, ast.Value, error) {
	f := &flight{req: in.Request, now: in.Now, workflow: in.Request.workflow}
	if err := p.route(f, in); err != nil {
		return "", nil, err
	}
	f.validation = append(f.validation, p.validate(f)...)
	f.derived = derive(f.req.value, len(f.req.body), f.req.digest, p.contracts.Scanner)
	v, err := f.input()
	return f.entrypoint(), v, err
}

// Unroutable is the decision on a recorded request whose pack the bundle does not have
// (why says so): blocked with POLICY_ERROR, no policy asked, its identity the
// recorded one. Replay reports it rather than deciding the request by the core policy.
func (p *Pipeline) Unroutable(in Input, why string) *Result {
	f := &flight{req: in.Request, decisionID: in.DecisionID, now: in.Now, tenant: in.Request.tenant, workflow: in.Request.workflow,
		state: in.State, create: in.Start, audit: true, validation: append([]ValidationError(nil), in.Facts.Routing...)}
	d := p.failClosed(CodePolicyError, why)
	p.settle(f, d, policy.CoreEntrypoint)
	return &Result{Decision: d, flight: f}
}
