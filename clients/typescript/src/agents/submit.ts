// What an agent's tools record for its next governed handoff, and the requests it becomes.
import type { Produced, Workflow } from "../workflow.js";

/** One attestation: an agent's word on a gate no machine decides, or on a skill it ran
 * (the video pack's `attestations`); the engine checks it against the pack's contract. */
export type Attestation = Record<string, unknown>;

/** What an agent's tool recorded for its next handoff: an artifact, or a review. */
export type Recorded =
  | { kind: "handoff"; taskType: string; artifact: Produced; attestations?: Attestation[] }
  | { kind: "review"; review: Review };

/** A verdict on recorded artifacts, cited as TYPE, TYPE@N or ${ref:TYPE@N}. */
export interface Review {
  verdict: string;
  artifacts: string[];
  defects: unknown[];
  gates: unknown[];
  /** The reviewer's attestations of the judgement gates it checked. */
  attestations?: Attestation[];
  report?: Record<string, unknown>;
  summary?: string;
}

/** What a recording is named by in request ids and messages: the review, or its type. */
export function recordedName(r: Recorded | undefined): string {
  return r === undefined ? "route" : r.kind === "review" ? "review" : r.artifact.type;
}

/** The fields of a review: its citations resolved to recorded versions. */
export async function reviewFields(workflow: Workflow, r: Review): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {
    verdict: r.verdict,
    artifacts: await workflow.refs(r.artifacts),
    defects: r.defects,
    gates: r.gates,
    summary: r.summary ?? `Review: ${r.verdict}`,
  };
  if (r.report !== undefined) fields.report = r.report;
  if (r.attestations !== undefined) fields.attestations = r.attestations;
  return fields;
}

/** The fields of a handoff of what a record tool recorded (or of none: a routing handoff). */
export async function handoffFields(workflow: Workflow, source: string, target: string, taskType: string | undefined, r: Extract<Recorded, { kind: "handoff" }> | undefined): Promise<Record<string, unknown>> {
  const fields = await workflow.handoffFields(source, target, r?.taskType ?? taskType, r?.artifact);
  if (r?.attestations !== undefined) fields.attestations = r.attestations;
  return fields;
}
