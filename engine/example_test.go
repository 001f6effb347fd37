package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// A host program embeds the engine: it opens a store, submits each request its agents
// make and acts on the decision. A block is a decision, not an error.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "handoff-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	eng, err := engine.Open(ctx, engine.Options{Dir: dir})
	if err != nil {
		log.Fatal(err) // a bundle that does not compile, or the store is locked
	}
	defer eng.Close()

	start := `{"request_id": "req-1", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing",
		"workflow_id": "wf-launch", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"},
		"pack": "campaign", "subject_id": "spring-launch",
		"brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups by 20% in Q2",
			"product": "Brightbrew Cold Brew", "market": "EU", "channels": ["email"], "deadline": "2026-05-15T17:00:00Z"}}`
	d, err := eng.Submit(ctx, []byte(start))
	if err != nil {
		log.Fatal(err) // no decision could be made: treat the request as blocked
	}
	fmt.Println(d.Outcome, d.StatusBefore, "→", d.StatusAfter, "version", d.StateVersion)
	for _, n := range d.Next {
		fmt.Println("next:", n.Agent, n.Task)
	}

	// The same workflow id from another tenant is refused and never reveals the owner.
	intruder := `{"request_id": "req-2", "kind": "cancel", "tenant_id": "globex", "workflow_id": "wf-launch",
		"trace_id": "trace-2", "actor": {"type": "human", "id": "mallory", "roles": ["campaign_approver"]}, "reason": "mine now"}`
	d, err = eng.Submit(ctx, []byte(intruder))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Outcome, d.Codes())
	// Output:
	// allow INTAKE → RESEARCH version 1
	// next: research_agent research
	// block [TENANT_MISMATCH]
}

// A Decider decides without a store: the host passes the workflow's state and keeps the
// next state the decision leads to.
func ExampleDecider_Decide() {
	ctx := context.Background()
	dc, err := engine.NewDecider(ctx, engine.DeciderOptions{LazyPolicies: true})
	if err != nil {
		log.Fatal(err)
	}
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	start := `{"request_id": "req-1", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing",
		"workflow_id": "wf-launch", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"},
		"pack": "campaign", "subject_id": "spring-launch",
		"brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups by 20% in Q2",
			"product": "Brightbrew Cold Brew", "market": "EU", "channels": ["email"], "deadline": "2026-05-15T17:00:00Z"}}`
	d, state, err := dc.Decide(ctx, engine.Input{Request: []byte(start), Now: at})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Outcome, d.StatusAfter, "version", state.StateVersion)

	cancel := `{"request_id": "req-2", "kind": "cancel", "tenant_id": "globex", "workflow_id": "wf-launch",
		"trace_id": "trace-2", "actor": {"type": "human", "id": "mallory", "roles": ["campaign_approver"]}, "reason": "mine now"}`
	d, next, err := dc.Decide(ctx, engine.Input{Request: []byte(cancel), State: state, Now: at})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Outcome, d.Codes(), next == nil)
	// Output:
	// allow RESEARCH version 1
	// block [TENANT_MISMATCH] true
}
