package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"

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
		log.Fatal(err) // a bundle that does not compile, stale tables, or the store is locked
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
