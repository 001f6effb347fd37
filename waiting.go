package handoff

// Waiting is what a workflow waits for: who may act in its status and, for each, the
// requests the policy accepts there with the recorded versions each must cite. The
// steps are derived from the pack's contract tables (agents and their permissions,
// roles and what they approve, actors per status, transitions, artifact contracts,
// context packages and the pack's required_inputs configuration) and the workflow's
// state (its artifacts, task graph and effects); then each is put to the policy as a
// dry run (see Step.Outcome), and a step the policy refuses for who sends it, when or
// in which order is left out. The policy still decides every request actually sent.
type Waiting struct {
	WorkflowID   string `json:"workflow_id"`
	TenantID     string `json:"tenant_id"`
	Pack         string `json:"pack"`
	Status       string `json:"status"`
	Terminal     bool   `json:"terminal"`
	StateVersion uint64 `json:"state_version"`
	// At is the time the steps were put to the policy (RFC 3339).
	At string `json:"at"`
	// Parties are who may act now: agents and human roles of the status, then the host.
	// A terminal workflow lists them only when the policy still takes something (the
	// outcome of a human handoff, for one).
	Parties []Party `json:"parties"`
	// Leads are the transitions out of the status, cancel left out.
	Leads []Lead `json:"leads"`
}

// Party is one agent, human role or the host that may act now.
type Party struct {
	ID   string `json:"id"`
	Type string `json:"type"` // agent, human (a role) or system (the host)
	Name string `json:"name,omitempty"`
	Task string `json:"task,omitempty"`
	// Requests are what it may send, in the order the contract lists them.
	Requests []Step `json:"requests"`
	// Note says why a party of the status has nothing to send.
	Note string `json:"note,omitempty"`
	// Refused are the steps derived for it that the policy refuses now (Step.Reasons
	// say why); they are not offered.
	Refused []Step `json:"refused,omitempty"`
}

// Step is one request a party may send.
type Step struct {
	Kind string `json:"kind"`
	// Source, on a handoff the host sends, is the agent on whose behalf it sends it (the
	// policy refuses the agent's own).
	Source string `json:"source,omitempty"`
	// Target is a handoff's target_agent; Output the artifact type it delivers, at
	// Version (Supersedes the latest recorded version, when there is one), under the
	// artifact's OutputID once a version is recorded. A handoff without Output routes
	// work only: it assigns TaskID.
	Target     string `json:"target,omitempty"`
	Output     string `json:"output,omitempty"`
	OutputID   string `json:"output_id,omitempty"`
	Version    int    `json:"version,omitempty"`
	Supersedes int    `json:"supersedes,omitempty"`
	// TaskType is a handoff's task_type: the source's task in the status.
	TaskType string `json:"task_type,omitempty"`
	// TaskID is the task of the workflow's task graph a handoff assigns or completes (a
	// pack whose handoffs name it has a task_id field). Restate are the request's fields
	// the task's recorded assignment gives, to restate as they are.
	TaskID  string         `json:"task_id,omitempty"`
	Restate map[string]any `json:"restate,omitempty"`
	// Limitations are the limitations recorded on the versions the handoff must cite:
	// its limitations restate each.
	Limitations []string `json:"limitations,omitempty"`
	// Stage is an approval's stage; Answers the decisions a person may give, the
	// verdicts a reviewer may give, or the results of an outcome the policy takes now.
	Stage   string   `json:"stage,omitempty"`
	Answers []string `json:"answers,omitempty"`
	// Task and Agent are a failure's: the task that failed and the agent it ran with
	// (the task graph's id when the workflow has one, else the agent's task).
	Task  string `json:"task,omitempty"`
	Agent string `json:"agent,omitempty"`
	// ConflictID is a resolution's conflict.
	ConflictID string `json:"conflict_id,omitempty"`
	// EffectID is an outcome's effect.
	EffectID string `json:"effect_id,omitempty"`
	// Field is the request field Cite goes in: input_artifacts, artifacts or chosen.
	Field string `json:"field,omitempty"`
	// After are the outputs of the same party this handoff needs recorded first: the
	// order of its steps. A step with After is not sent yet.
	After []string `json:"after,omitempty"`
	// Cite are the versions the request must name; MayCite those it may name too.
	Cite    []Citation `json:"cite,omitempty"`
	MayCite []Citation `json:"may_cite,omitempty"`
	// Fill are values of fields the request leaves to fill that the policy takes with
	// the rest of the step, by dotted path: the value of an enumeration that goes with
	// it (a failure's retry type, a handoff's type) where the template's first is refused.
	Fill map[string]any `json:"fill,omitempty"`
	// Outcome and Reasons are the policy's answer to the step now, when its reasons
	// concern the step itself (who sends it, when, what it cites) rather than the values
	// left to fill: a deadline that passed escalates, a last retry spends the budget.
	// Empty when the policy has nothing to say about the step itself.
	Outcome Outcome  `json:"outcome,omitempty"`
	Reasons []Reason `json:"reasons,omitempty"`
	// NotBefore, on a step the policy refuses now (Outcome block), is the earliest time
	// it accepts it (RFC 3339): a retry not due yet.
	NotBefore string `json:"not_before,omitempty"`
}

// Citation is one artifact version to name in a request: the recorded reference and
// the ${ref:TYPE@N} placeholder scenarios use for it. Ref is nil when no version of
// Type is recorded (Missing says what is missing).
type Citation struct {
	Type        string       `json:"type"`
	Ref         *ArtifactRef `json:"ref,omitempty"`
	Placeholder string       `json:"placeholder,omitempty"`
	// Status is the version's recorded status, which a request restates where it
	// lists versions with their status.
	Status  string `json:"status,omitempty"`
	Missing string `json:"missing,omitempty"`
}

// Lead is one transition out of the status.
type Lead struct {
	To string `json:"to"`
	On string `json:"on,omitempty"`
}
