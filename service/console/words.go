package console

import (
	"html/template"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

// The words the pages say for the engine's values: the people at the gates read
// "Refused", not "block". The values stay on the pages small, or in attributes, for
// search and for the tests; every table here is checked against the bundle
// (words_test.go).

// outcomeWords say what each outcome means to the person reading it.
var outcomeWords = map[engine.Outcome]string{
	engine.Allow:      "Moved on",
	engine.AwaitHuman: "Waiting for a person",
	engine.Block:      "Refused",
	engine.Retry:      "To be retried",
	engine.Revise:     "Sent back for revision",
	engine.Fail:       "Failed",
}

// outcomeSaid is an outcome in words; an outcome the table does not know is said as
// its value in words, never left out.
func outcomeSaid(o engine.Outcome) string {
	if s, ok := outcomeWords[o]; ok {
		return s
	}
	return words(string(o))
}

// kindWords say what each kind of request is.
var kindWords = map[string]string{
	"start":      "Start",
	"handoff":    "Handoff",
	"review":     "Review",
	"approval":   "A person's decision",
	"failure":    "Failure reported",
	"resolution": "Conflict resolved by a person",
	"outcome":    "Delivery outcome",
	"cancel":     "Cancellation",
}

func kindSaid(kind string) string {
	if s, ok := kindWords[kind]; ok {
		return s
	}
	return words(kind)
}

// answerWords say what a person answered at a gate (an approval's decision).
var answerWords = map[string]string{
	"APPROVE":          "Approved",
	"REQUEST_REVISION": "Asked for a revision",
	"REJECT":           "Rejected",
}

func answerSaid(a string) string {
	if s, ok := answerWords[a]; ok {
		return s
	}
	return words(a)
}

// artifactStatusWords say where a version of an artifact stands (core.#ArtifactStatus).
var artifactStatusWords = map[string]string{
	"draft":             "Draft",
	"under_review":      "Being reviewed",
	"revision_required": "Needs a revision",
	"approved":          "Approved",
	"superseded":        "Replaced by a later version",
	"final":             "Final",
	"rejected":          "Rejected",
}

func artifactStatusSaid(s string) string {
	if w, ok := artifactStatusWords[s]; ok {
		return w
	}
	return words(s)
}

// statusSaid is a workflow's status (a pack's state) in words: "STRATEGY_APPROVAL" is
// "Strategy approval", "SOA_APPROVAL" "SoA approval".
func statusSaid(s string) string {
	parts := strings.Split(words(s), " ")
	for i, p := range parts {
		if a, ok := acronyms[strings.ToUpper(p)]; ok {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// acronyms are the words of the packs' statuses said as letters, not as words.
var acronyms = map[string]string{"QA": "QA", "SOA": "SoA", "POAM": "POA&M", "KB": "KB"}

// reasonWords reword the reasons whose rules speak the engine's language ("Idempotency
// key reused") in the words of the person who meets them at a gate: they win over the
// rule's title. The others keep their rule's title (titles.of), written for people.
var reasonWords = map[string]string{
	"IDEMPOTENCY_KEY_REUSED":     "Already sent, with other choices: reload the page for a fresh form",
	"STALE_STATE_VERSION":        "The workflow moved on since the page was made",
	"WORKFLOW_EXISTS":            "A workflow with this id already exists",
	"WORKFLOW_NOT_FOUND":         "No such workflow",
	"WORKFLOW_TERMINAL":          "The workflow has ended: it takes nothing more",
	"SCHEMA_INVALID":             "The request lacks a field, or a field is of the wrong kind",
	"UNKNOWN_FIELD":              "The request has a field its contract does not know",
	"INVALID_ENCODING":           "The request could not be read",
	"DUPLICATE_KEY":              "The request gives a field twice",
	"PAYLOAD_TOO_LARGE":          "The request is too large",
	"DEPTH_EXCEEDED":             "The request is nested too deeply",
	"POLICY_ERROR":               "The rules could not decide: an error in the policy",
	"POLICY_TIMEOUT":             "The rules took too long to decide",
	"IDENTITY_MISMATCH":          "Sent in the name of someone else",
	"TENANT_MISMATCH":            "Another organisation's workflow",
	"SCOPE_MISMATCH":             "Outside this workflow's scope",
	"MISSING_TRACE_ID":           "No trace id to follow the work by",
	"UNKNOWN_PACK":               "No such kind of workflow",
	"INVALID_TRANSITION":         "Not a step the workflow takes from where it is",
	"HANDOFF_ID_REUSED":          "A handoff already sent under the same id",
	"NOT_EVIDENCED_RECLASSIFIED": "A finding marked not evidenced was reclassified",
	"SOURCE_GROUNDING_FAILURE":   "A claim not grounded in its sources",
	"SECURITY_AUDIT":             "Recorded for the security audit",
}

// codes the engine gives itself, with no rule of the bundle that carries them.
var engineCodes = []string{"POLICY_ERROR", "POLICY_TIMEOUT", "IDENTITY_MISMATCH", "WORKFLOW_EXISTS",
	"WORKFLOW_NOT_FOUND", "UNKNOWN_PACK", "IDEMPOTENCY_KEY_REUSED", "INVALID_ENCODING", "SCHEMA_INVALID", "TENANT_MISMATCH"}

// reasonSaid is reason r of a decision of pack in a person's words: the rewording of
// the engine's own texts, else the title of the rule that produced it (titles.of).
func (c *Console) reasonSaid(pack string, r engine.Reason) string {
	if s, ok := reasonWords[r.Code]; ok {
		return s
	}
	return c.titles().of(pack, r)
}

// reasonsSaid are the reasons of a decision of pack, each titled in a person's words.
func (c *Console) reasonsSaid(pack string, rs []engine.Reason) []engine.Reason {
	out := make([]engine.Reason, len(rs))
	for i, r := range rs {
		r.Title = c.reasonSaid(pack, r)
		out[i] = r
	}
	return out
}

// wordFuncs are the templates' helpers that say values in words.
func (c *Console) wordFuncs() template.FuncMap {
	return template.FuncMap{
		"outcomeSaid":        outcomeSaid,
		"kindSaid":           kindSaid,
		"answerSaid":         answerSaid,
		"artifactStatusSaid": artifactStatusSaid,
		"statusSaid":         statusSaid,
		"reasonSaid":         c.reasonSaid,
		"reasonsSaid":        c.reasonsSaid,
	}
}
