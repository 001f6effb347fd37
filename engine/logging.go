package engine

import (
	"context"
	"log/slog"
)

// Log attribute keys. Payload contents are never logged.
const (
	logDecisionID = "decision_id"
	logTenantID   = "tenant_id"
	logTraceID    = "trace_id"
	logWorkflowID = "workflow_id"
	logOutcome    = "outcome"
	logCodes      = "codes"
)

// logDecision reports a recorded decision: identifiers, outcome and reason codes only.
func (e *Engine) logDecision(ctx context.Context, d *Decision) {
	level := slog.LevelDebug
	if d.Outcome == Block {
		level = slog.LevelInfo
	}
	e.logger.Log(ctx, level, "decision",
		logDecisionID, d.DecisionID, logTenantID, d.TenantID, logWorkflowID, d.WorkflowID,
		logTraceID, d.TraceID, logOutcome, string(d.Outcome), logCodes, d.Codes())
}
