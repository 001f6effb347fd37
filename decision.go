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

// Reason is one cause of a decision. Code is a stable UPPER_SNAKE reason code.
type Reason struct {
	Code string `json:"code"`
	// Title is the METADATA title of the policy rule that produced the reason; empty in
	// decisions recorded before titles were carried.
	Title   string  `json:"title,omitempty"`
	Message string  `json:"message"`
	Gate    string  `json:"gate,omitempty"`
	Path    string  `json:"path,omitempty"`
	Outcome Outcome `json:"outcome,omitempty"`
}

// Next is one agent that may act now, the task it performs and the context it receives.
type Next struct {
	Agent   string      `json:"agent"`
	Task    string      `json:"task"`
	Context NextContext `json:"context"`
}

// NextContext is the context package of one routing answer: must-know fields only, plus
// what the agent may know. Fields the contract marks as not needed never appear. Every
// value is wrapped as {"untrusted_data": value}: it was written by an agent, a tool or a
// person, and reaches the next agent as data, never as its instructions.
type NextContext struct {
	MustKnow map[string]any `json:"must_know"`
	MayKnow  map[string]any `json:"may_know"`
	// Flags are the strings of the request that match an injection pattern (core
	// guardrails.injection), in a pack that flags rather than refuses them: the agent
	// reads the package knowing that a text in it looks like an instruction. Empty when
	// none did.
	Flags []TextHit `json:"flags,omitempty"`
}

// RetryPlan is the retry answer. DelayMS is the policy's delay: its backoff plus the
// request's jitter (core.retry_decision), the same number the pack records and checks.
type RetryPlan struct {
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	DelayMS     int64  `json:"delay_ms"`
	Task        string `json:"task,omitempty"`
}

// Revision sends one artifact back to its producer with the defects to repair.
type Revision struct {
	Artifact string   `json:"artifact"`
	Producer string   `json:"producer"`
	Defects  []string `json:"defects"`
}

// PolicyRef names the policy a decision was made with.
type PolicyRef struct {
	BundleDigest string `json:"bundle_digest"`
	Entrypoint   string `json:"entrypoint"`
}

// Decision is the engine's answer to one request. A block is a Decision, not an error.
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

// TextHit is one pattern that matched one string of a request: the string's path in the
// policies' notation (output.content.claims[2].text; a key's path ends with the key) and
// the pattern's name (a gitleaks rule is "gitleaks:<rule id>").
type TextHit struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
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
