package handoff

// Outcome is what the host does next with a request.
type Outcome string

// The outcomes a decision can have.
const (
	Allow      Outcome = "allow"       // invoke the next agents in Decision.Next
	AwaitHuman Outcome = "await_human" // wait for a person's approval or resolution
	Retry      Outcome = "retry"       // retry the task after Decision.Retry.DelayMS
	Revise     Outcome = "revise"      // send the artifacts in Decision.Revise back to their producers
	Block      Outcome = "block"       // refuse the request; nothing in the workflow changed
	Fail       Outcome = "fail"        // the workflow failed safe
)

// Decision is the engine's answer to one request (CUE core.#Decision). A block is a
// Decision, not an error. Unlike the other wire types (wire_gen.go) it is written by
// hand: its JSON puts the request's identity before the policy's result, where CUE's
// order has the embedded #PolicyResult first, and it holds marks that are not JSON.
// internal/wiregen's tests check its fields against #Decision.
type Decision struct {
	DecisionID          string     `json:"decision_id"`
	RequestID           string     `json:"request_id"`
	WorkflowID          string     `json:"workflow_id"`
	TenantID            string     `json:"tenant_id"`
	TraceID             string     `json:"trace_id"`
	Kind                string     `json:"kind"`
	Pack                string     `json:"pack"`
	Outcome             Outcome    `json:"outcome"`
	Reasons             []Reason   `json:"reasons"`
	StatusBefore        string     `json:"status_before"`
	StatusAfter         string     `json:"status_after"`
	StateVersion        uint64     `json:"state_version"`
	Next                []Next     `json:"next"`
	Retry               *RetryPlan `json:"retry,omitempty"`
	Revise              []Revision `json:"revise"`
	ConflictID          string     `json:"conflict_id,omitempty"`
	RequiresHumanReview bool       `json:"requires_human_review"`
	Events              []Event    `json:"events"`
	Policy              PolicyRef  `json:"policy"`
	Recorded            bool       `json:"recorded"`
	DecidedAt           string     `json:"decided_at"`

	// Neither is part of the decision's JSON: a resent decision stays byte for byte the
	// recorded one.
	resent           bool // the recorded answer to a request decided before
	identityMismatch bool // refused: the request is not its authenticated principal's
}

// Resent reports whether the decision is the recorded answer to the same request
// decided before (the idempotency of request_id), not a new decision.
func (d *Decision) Resent() bool { return d.resent }

// IdentityMismatch reports whether the request was refused because its tenant or actor
// is not the principal the host authenticated it as, or it claims a role the principal
// does not hold (SubmitFrom, EvaluateFrom): the block carries IDENTITY_MISMATCH.
func (d *Decision) IdentityMismatch() bool { return d.identityMismatch }

// MarkResent says the decision is the recorded answer to a request decided before. The
// engine calls it; it changes nothing of the decision's JSON.
func (d *Decision) MarkResent() { d.resent = true }

// MarkIdentityMismatch says the request was refused for not being its authenticated
// principal's. The engine calls it; it changes nothing of the decision's JSON.
func (d *Decision) MarkIdentityMismatch() { d.identityMismatch = true }

// Codes returns the decision's reason codes in order.
func (d *Decision) Codes() []string {
	codes := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		codes[i] = r.Code
	}
	return codes
}
