package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/service/client"
)

// Verdict is what validate and submit answer: the engine's decision, with each reason
// told as what to fix. Refused is true for the outcomes that change nothing or end the
// workflow (block, fail): the request has to be fixed, not retried as it is.
type Verdict struct {
	Outcome    handoff.Outcome `json:"outcome"`
	Refused    bool            `json:"refused"`
	Recorded   bool            `json:"recorded"`
	DecisionID string          `json:"decision_id,omitempty"`
	RequestID  string          `json:"request_id,omitempty"`
	WorkflowID string          `json:"workflow_id,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	// StatusBefore and StatusAfter are the workflow's status before and after the request.
	StatusBefore string `json:"status_before,omitempty"`
	StatusAfter  string `json:"status_after,omitempty"`
	StateVersion uint64 `json:"state_version"`
	// Reasons are the causes of the decision, each with what to fix.
	Reasons []Reason `json:"reasons"`
	// Decision is the engine's whole decision (a *handoff.Decision): the agents to
	// invoke next with their context (data from requests), a retry plan, the artifacts
	// to revise. Its schema is left open: the decision's own is the service's OpenAPI
	// document's.
	Decision any `json:"decision"`
}

// Reason is one cause of a decision. Code, Title, Gate, Path and Fix come from the
// policies; Message may quote what the request said and is untrusted data.
type Reason struct {
	Code    string          `json:"code"`
	Title   string          `json:"title,omitempty"`
	Message string          `json:"message"`
	Gate    string          `json:"gate,omitempty"`
	Path    string          `json:"path,omitempty"`
	Outcome handoff.Outcome `json:"outcome,omitempty"`
	// Fix says what the rule that gave the reason checks: what the request must meet.
	Fix string `json:"fix,omitempty"`
}

// decide validates or submits a request and answers its decision as a Verdict.
func (s *server) decide(ctx context.Context, in RequestInput, record bool) (*sdk.CallToolResult, *Verdict, error) {
	if in.Request == nil {
		return nil, nil, errors.New("request is required: a JSON object (start from the template tool)")
	}
	body, err := json.Marshal(in.Request)
	if err != nil {
		return nil, nil, err
	}
	var d *handoff.Decision
	if record {
		d, err = s.c.Submit(ctx, body)
	} else {
		d, err = s.c.Evaluate(ctx, body)
	}
	var ce *client.Error
	if errors.As(err, &ce) && ce.Decision != nil {
		// The service decided the request and refused it as an answer (a request
		// that is not the principal's): a refusal like any other.
		d, err = ce.Decision, nil
	}
	if err != nil {
		_, _, err = s.failure(err)
		return nil, nil, err
	}
	v := s.verdict(ctx, d)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: v.text()}}}, &v, nil
}

func (s *server) verdict(ctx context.Context, d *handoff.Decision) Verdict {
	v := Verdict{Outcome: d.Outcome, Refused: d.Outcome == handoff.Block || d.Outcome == handoff.Fail, Recorded: d.Recorded,
		DecisionID: d.DecisionID, RequestID: d.RequestID, WorkflowID: d.WorkflowID, Kind: d.Kind,
		StatusBefore: d.StatusBefore, StatusAfter: d.StatusAfter, StateVersion: d.StateVersion,
		Reasons: make([]Reason, 0, len(d.Reasons)), Decision: d}
	catalog := s.reasonCatalog(ctx)
	for _, r := range d.Reasons {
		v.Reasons = append(v.Reasons, Reason{Code: r.Code, Title: r.Title, Message: r.Message, Gate: r.Gate, Path: r.Path,
			Outcome: r.Outcome, Fix: catalog[r.Code].Description})
	}
	return v
}

// text tells a model the verdict: what happened, then each reason and what to fix.
func (v Verdict) text() string {
	var b strings.Builder
	what := "decided (dry run, nothing recorded)"
	if v.Recorded {
		what = "decided and recorded"
	}
	fmt.Fprintf(&b, "Outcome: %s. The %s request was %s", v.Outcome, v.Kind, what)
	if v.WorkflowID != "" {
		fmt.Fprintf(&b, "; workflow %s %s -> %s, state version %d", v.WorkflowID, v.StatusBefore, v.StatusAfter, v.StateVersion)
	}
	if v.DecisionID != "" {
		fmt.Fprintf(&b, "; decision %s", v.DecisionID)
	}
	b.WriteString(".\n")
	switch v.Outcome {
	case handoff.Block:
		b.WriteString("REFUSED: nothing in the workflow changed. Fix every reason below and send the request again with a new request_id.\n")
	case handoff.Fail:
		b.WriteString("The workflow failed safe: it takes no more work.\n")
	case handoff.AwaitHuman:
		b.WriteString("The workflow waits for a person's decision.\n")
	case handoff.Retry:
		b.WriteString("Retry the task as the decision's retry plan says.\n")
	case handoff.Revise:
		b.WriteString("The artifacts under decision.revise go back to their producers.\n")
	}
	for _, r := range v.Reasons {
		fmt.Fprintf(&b, "- %s", r.Code)
		if r.Gate != "" {
			fmt.Fprintf(&b, " (gate %s)", r.Gate)
		}
		if r.Title != "" {
			fmt.Fprintf(&b, ": %s", r.Title)
		}
		if r.Path != "" {
			fmt.Fprintf(&b, " at %s", r.Path)
		}
		b.WriteString("\n")
		if r.Fix != "" {
			fmt.Fprintf(&b, "  what to fix: %s\n", r.Fix)
		}
		fmt.Fprintf(&b, "  message: %s\n", untrusted(r.Message))
	}
	if d, ok := v.Decision.(*handoff.Decision); ok && len(d.Next) > 0 {
		agents := make([]string, 0, len(d.Next))
		for _, n := range d.Next {
			agents = append(agents, n.Agent+" ("+n.Task+")")
		}
		fmt.Fprintf(&b, "Next: %s. Their context is in decision.next of the structured result: data from requests.\n", strings.Join(agents, ", "))
	}
	return strings.TrimSpace(b.String())
}

// reasonCatalog returns the policies' reason codes, read once; a service that cannot
// list them leaves the reasons without what to fix rather than failing the call.
func (s *server) reasonCatalog(ctx context.Context) map[string]client.ReasonInfo {
	s.reasonsOnce.Do(func() {
		rs, err := s.c.Reasons(ctx)
		if err != nil {
			return
		}
		s.reasons = make(map[string]client.ReasonInfo, len(rs))
		for _, r := range rs {
			if _, seen := s.reasons[r.Code]; !seen {
				s.reasons[r.Code] = r
			}
		}
	})
	return s.reasons
}
