package handoff

// WorkflowFilter selects workflows of a tenant; the zero value selects them all.
type WorkflowFilter struct {
	Pack   string // only this pack's
	Status string // only those in this status
	// AwaitingHuman keeps the workflows whose standing decision is await_human: they
	// wait for a person.
	AwaitingHuman bool
}
