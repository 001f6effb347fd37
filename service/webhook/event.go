package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"

	"github.com/handoff-dev/handoff/engine"
)

// Event is the JSON body of one delivery. It carries ids, codes, statuses and the
// titles of the rules that gave the reasons: never a request's or a reason's free text
// (a reason's message quotes what agents wrote).
type Event struct {
	// ID is the idempotency id, also sent as Handoff-Webhook-Id: the same for an endpoint
	// and a decision on every attempt, after a restart and from every process.
	ID           string        `json:"id"`
	Type         string        `json:"type"`
	TenantID     string        `json:"tenant_id"`
	WorkflowID   string        `json:"workflow_id"`
	DecisionID   string        `json:"decision_id"`
	Pack         string        `json:"pack"`
	Kind         string        `json:"kind"`
	Outcome      string        `json:"outcome"`
	Status       string        `json:"status"`
	StatusBefore string        `json:"status_before"`
	Reasons      []EventReason `json:"reasons"`
	// Next are the agents and human roles that may act now (ids only).
	Next                []string `json:"next"`
	RequiresHumanReview bool     `json:"requires_human_review"`
	ConflictID          string   `json:"conflict_id,omitempty"`
	DecidedAt           string   `json:"decided_at"`
	// ConsolePath is the workflow's page in the review console, relative to the server.
	ConsolePath string `json:"console_path"`
}

// EventReason is a reason's code and the title of the rule that gave it.
type EventReason struct {
	Code  string `json:"code"`
	Title string `json:"title,omitempty"`
}

// EventType is the event a recorded decision is for an endpoint that counts
// escalations into statuses, or "" when it is none:
//
//   - EventAwaitHuman: the outcome is await_human, a gate waits for a person;
//   - EventEscalation: the outcome is allow, retry, revise or fail (not await_human, not
//     block: a block changes nothing) and the decision hands work to people: it
//     requires_human_review, names a conflict_id, or moves the workflow into one of
//     escalationStatuses (status_after one of them, status_before not).
func EventType(d *engine.Decision, escalationStatuses []string) string {
	switch {
	case d.Outcome == engine.AwaitHuman:
		return EventAwaitHuman
	case d.Outcome == engine.Block:
		return ""
	case d.RequiresHumanReview, d.ConflictID != "",
		d.StatusAfter != d.StatusBefore && slices.Contains(escalationStatuses, d.StatusAfter):
		return EventEscalation
	}
	return ""
}

// WebhookID is the idempotency id of the event of a decision for one endpoint of a
// tenant: stable whoever computes it and whenever.
func WebhookID(tenant, endpoint, decisionID string) string {
	sum := sha256.Sum256([]byte(tenant + "\x00" + endpoint + "\x00" + decisionID))
	return "whk_" + hex.EncodeToString(sum[:16])
}

// newEvent is the event of type typ of decision d for an endpoint.
func newEvent(ep *Endpoint, typ string, d *engine.Decision) Event {
	ev := Event{
		ID: WebhookID(ep.Tenant, ep.Name, d.DecisionID), Type: typ,
		TenantID: d.TenantID, WorkflowID: d.WorkflowID, DecisionID: d.DecisionID, Pack: d.Pack, Kind: d.Kind,
		Outcome: string(d.Outcome), Status: d.StatusAfter, StatusBefore: d.StatusBefore,
		Reasons: []EventReason{}, Next: []string{},
		RequiresHumanReview: d.RequiresHumanReview, ConflictID: d.ConflictID, DecidedAt: d.DecidedAt,
		ConsolePath: "/console/workflows/" + url.PathEscape(d.WorkflowID),
	}
	for _, r := range d.Reasons {
		ev.Reasons = append(ev.Reasons, EventReason{Code: r.Code, Title: r.Title})
	}
	for _, n := range d.Next {
		if !slices.Contains(ev.Next, n.Agent) {
			ev.Next = append(ev.Next, n.Agent)
		}
	}
	return ev
}

// body is the event's JSON, the bytes signed and sent on every attempt.
func (ev *Event) body() []byte {
	b, err := json.Marshal(ev)
	if err != nil {
		panic("webhook: an event of strings does not encode: " + err.Error())
	}
	return b
}
