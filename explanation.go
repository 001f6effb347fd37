package handoff

import "encoding/json"

// Explanation says why a decision is what it is: for each reason, the policy rules that
// produced it with their METADATA and the input values they read; and the rules that
// were checked and did not fire.
type Explanation struct {
	Decision   *Decision         `json:"decision"`
	Entrypoint string            `json:"entrypoint"`
	Reasons    []ExplainedReason `json:"reasons"`
	// Passed lists the rules carrying a reason code that the evaluation checked and that
	// did not fire: for an allow, everything that could have blocked it.
	Passed []RuleInfo `json:"passed"`
	// Reproduced says the traced evaluation gave the decision explained (always true
	// for Engine.EvaluateExplain; for a recorded decision, false when the bundle is not
	// the one it was recorded with).
	Reproduced bool `json:"reproduced"`
	// Redaction is set when the log holds the request redacted (it carried a secret or
	// personal data): it is not evaluated again, Reproduced is false, each reason names
	// the rules that carry its code, and Request is the redacted copy recorded.
	Redaction *Redaction      `json:"redaction,omitempty"`
	Request   json.RawMessage `json:"request,omitempty"`
	// Candidate says Decision is a candidate bundle's, decided again on the recorded
	// input (Engine.ExplainCandidate); Recorded is then the decision the log holds.
	Candidate bool      `json:"candidate,omitempty"`
	Recorded  *Decision `json:"recorded,omitempty"`
}

// ExplainedReason is one reason of a decision and the rules that produced it. Reasons
// the engine adds itself (POLICY_ERROR, POLICY_TIMEOUT) have no rule.
type ExplainedReason struct {
	Reason
	Rules []FiredRule `json:"rules"`
}

// RuleInfo is a policy rule that carries a reason code in its METADATA.
type RuleInfo struct {
	Code        string `json:"code"`
	Package     string `json:"package"`
	Title       string `json:"title"`
	Description string `json:"description"`
	File        string `json:"file"`
	Line        int    `json:"line"`
}

// FiredRule is a rule that fired, with the input values it (and the helper rules of
// its package it uses) reads.
type FiredRule struct {
	RuleInfo
	Inputs []InputValue `json:"inputs"`
}

// InputValue is one input path a rule reads and its value in this evaluation, in
// canonical JSON, shortened past 300 bytes. Missing is set when the path is undefined.
type InputValue struct {
	Path    string `json:"path"`
	Value   string `json:"value,omitempty"`
	Missing bool   `json:"missing,omitempty"`
}
