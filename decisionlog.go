package handoff

import "time"

// DecisionLogOptions select the decisions DecisionLog exports. The zero value selects
// every decision of every workflow and audit stream of every tenant.
type DecisionLogOptions struct {
	// Tenant limits the export to one tenant. Default: every tenant.
	Tenant string
	// Workflow limits the export to one workflow (and leaves the audit streams out).
	Workflow string
	// Since skips decisions recorded before this time.
	Since time.Time
}

// DecisionLogEvent is one decision in the shape of an OPA decision-log event (OPA's
// plugins/logs EventV1), so tools that read OPA decision logs read it: the input is the
// policy input the engine evaluated, the result the decision it returned.
type DecisionLogEvent struct {
	Labels     map[string]string     `json:"labels"`
	DecisionID string                `json:"decision_id"`
	Bundles    map[string]BundleInfo `json:"bundles"`
	Path       string                `json:"path"`
	Input      any                   `json:"input"`
	Result     any                   `json:"result"`
	// Erased lists, as JSON pointers, the values removed because the pack marks them
	// sensitive (OPA's decision-log masking records removals the same way).
	Erased    []string `json:"erased,omitempty"`
	Timestamp string   `json:"timestamp"`
	// Custom holds where the decision is in the log: stream ("workflow" or "audit"),
	// seq and hash; and redaction (a Redaction) when input.request is the redacted copy
	// the log holds instead of the request, which carried a secret or personal data.
	Custom map[string]any `json:"custom"`
}

// BundleInfo names the revision of a bundle: here the bundle digest.
type BundleInfo struct {
	Revision string `json:"revision"`
}
