package handoff

// WorkflowFilter selects workflows of a tenant; the zero value selects them all.
type WorkflowFilter struct {
	Pack   string // only this pack's
	Status string // only those in this status
	// AwaitingHuman keeps the workflows whose standing decision is await_human: they
	// wait for a person.
	AwaitingHuman bool
}

// WorkflowSummary is one workflow of a list.
type WorkflowSummary struct {
	Workflow     string `json:"workflow_id"`
	Pack         string `json:"pack"`
	Status       string `json:"status"`
	Terminal     bool   `json:"terminal"`
	StateVersion uint64 `json:"state_version"`
	UpdatedAt    string `json:"updated_at"`
	// Standing is the outcome of the latest decision that was not a block (Standing):
	// await_human when the workflow waits for a person. Empty when every decision was a
	// block.
	Standing Outcome `json:"standing"`
}
