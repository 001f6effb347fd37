import type { Decision } from "../types.js";

/**
 * The service stopped the handoff: the decision was block or fail (or asked for a retry
 * the run cannot make on its own). The run ends here; the decision says why.
 */
export class HandoffBlocked extends Error {
  override readonly name = "HandoffBlocked";
  readonly decision: Decision;

  constructor(decision: Decision) {
    const codes = decision.reasons.map((r) => r.code);
    super(`handoff: ${decision.outcome}: ${codes.join(", ") || "no reason given"} (workflow ${decision.workflow_id}, ${decision.status_after})`);
    this.decision = decision;
  }

  /** The reason codes of the decision, in order. */
  get codes(): string[] {
    return this.decision.reasons.map((r) => r.code);
  }
}
