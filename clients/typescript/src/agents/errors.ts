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

/**
 * An agent recorded several artifacts before one handoff and the workflow moved on from
 * it before all were submitted: the pack takes them in separate steps. Nothing was lost
 * silently: `unsent` names what was not submitted, `decision` what the last one got.
 */
export class UnsubmittedArtifacts extends Error {
  override readonly name = "UnsubmittedArtifacts";
  readonly decision: Decision;
  readonly agent: string;
  readonly unsent: string[];

  constructor(decision: Decision, agent: string, unsent: string[]) {
    const next = (decision.next ?? []).map((n) => n.agent).join(", ") || "no agent";
    super(
      `handoff: ${agent} recorded ${unsent.join(", ")} beyond what its handoff could submit: the decision on the one before (${decision.outcome}, ${decision.status_after}) gives the work to ${next}, not back to ${agent}; they were not submitted`,
    );
    this.decision = decision;
    this.agent = agent;
    this.unsent = unsent;
  }
}
