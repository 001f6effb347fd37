package handoff

import "context"

// Service is what a host calls to decide requests and read what was recorded. The
// engine in process (engine.Engine) and a server over HTTP (service/client.Client)
// both implement it, so a host written against Service runs embedded or remote alike.
// Every read is scoped by tenant; an implementation is safe for concurrent use.
type Service interface {
	// Submit decides a request and records the decision. A block is a Decision; an
	// error means no decision could be made, and the request counts as blocked.
	Submit(ctx context.Context, body []byte) (*Decision, error)
	// Evaluate decides a request as Submit would and records nothing.
	Evaluate(ctx context.Context, body []byte) (*Decision, error)
	// State is a workflow's current state (ErrNotFound for another tenant's).
	State(ctx context.Context, tenant, workflow string) (*State, error)
	// History calls fn for every recorded decision of a workflow, oldest first.
	History(ctx context.Context, tenant, workflow string, fn func(Entry) error) error
	// Audit calls fn for every decision of a tenant's security audit stream.
	Audit(ctx context.Context, tenant string, fn func(Entry) error) error
	// ListWorkflows lists a tenant's workflows that f selects, in id order.
	ListWorkflows(ctx context.Context, tenant string, f WorkflowFilter) ([]WorkflowSummary, error)
	// Verify checks one workflow's hash chain and everything its decisions rest on.
	Verify(ctx context.Context, tenant, workflow string) (VerifyReport, error)
	// VerifyTenant checks every workflow and the audit stream of a tenant.
	VerifyTenant(ctx context.Context, tenant string) ([]VerifyReport, error)
	// Decision finds a recorded decision by its id (ErrDecisionNotFound).
	Decision(ctx context.Context, id string) (Entry, error)
	// Explain says why a recorded decision is what it is.
	Explain(ctx context.Context, id string) (*Explanation, error)
	// DecisionLog calls fn for every selected decision in OPA's decision-log shape.
	DecisionLog(ctx context.Context, opts DecisionLogOptions, fn func(DecisionLogEvent) error) error
	// Close releases the service's resources.
	Close() error
}
