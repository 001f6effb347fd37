// What an agent's tools record for its next governed handoff.
import type { Produced, Workflow } from "../workflow.js";

/** What an agent's tool recorded for its next handoff: an artifact, or a review. */
export type Recorded =
  | { kind: "handoff"; callId: string; taskType: string; artifact: Produced }
  | { kind: "review"; callId: string; review: Review };

/** A QA verdict on recorded artifacts, cited as TYPE, TYPE@N or ${ref:TYPE@N}. */
export interface Review {
  verdict: string;
  artifacts: string[];
  defects: unknown[];
  gates: unknown[];
  report: Record<string, unknown>;
  summary?: string;
}

/** The fields of a review: its citations resolved to recorded versions. */
export async function reviewFields(workflow: Workflow, r: Review): Promise<Record<string, unknown>> {
  return {
    verdict: r.verdict,
    artifacts: await workflow.refs(r.artifacts),
    defects: r.defects,
    gates: r.gates,
    report: r.report,
    summary: r.summary ?? `Review: ${r.verdict}`,
  };
}
