// Builds the request a governed handoff sends and sends it once per request_id.
import type { Workflow } from "../workflow.js";
import type { Decision, State } from "../types.js";

/** What an agent's tool recorded for its next handoff: an artifact, or a review. */
export type Recorded =
  | { kind: "handoff"; callId: string; taskType: string; artifact: ProducedArtifact }
  | { kind: "review"; callId: string; review: Review };

/** An artifact as its tool recorded it: the contract's content and its envelope. */
export interface ProducedArtifact {
  type: string;
  content: Record<string, unknown>;
  /** Citations of what it built on: TYPE, TYPE@N, TYPE@approved (or ${ref:TYPE@N}). */
  inputs: string[];
  summary?: string;
  assumptions?: string[];
  limitations?: string[];
  confidence?: number;
  /** A later version names the one it replaces and why. */
  supersedes?: number;
  justification?: string;
}

/** A QA verdict on recorded artifacts. */
export interface Review {
  verdict: string;
  artifacts: string[];
  defects: unknown[];
  gates: unknown[];
  report: Record<string, unknown>;
  summary?: string;
}

/** "${ref:TYPE@N}" and "TYPE@N" cite the same version. */
export function citation(c: string): string {
  const m = /^\$\{ref:(.+)\}$/.exec(c);
  return m ? m[1]! : c;
}

type RecordedTypes = Record<string, { id: string; latest: number } | undefined>;

/** The fields of a handoff of artifact: its output takes the next version of its type. */
export async function handoffFields(workflow: Workflow, source: string, target: string, taskType: string, a: ProducedArtifact): Promise<Record<string, unknown>> {
  const state: State = await workflow.state();
  const recorded = ((state.artifacts ?? {}) as RecordedTypes)[a.type];
  const output: Record<string, unknown> = {
    id: recorded?.id ?? a.type.toLowerCase().replace(/_/g, "-"),
    type: a.type,
    version: (recorded?.latest ?? 0) + 1,
    content: a.content,
  };
  if (a.supersedes !== undefined) output.supersedes = a.supersedes;
  if (a.justification !== undefined) output.justification = a.justification;
  const fields: Record<string, unknown> = {
    source_agent: source,
    target_agent: target,
    task_type: taskType,
    input_artifacts: await workflow.refs(a.inputs.map(citation), state),
    output,
    output_summary: a.summary ?? `${a.type} from ${source}`,
    assumptions: a.assumptions ?? [],
    limitations: a.limitations ?? [],
  };
  if (a.confidence !== undefined) fields.confidence_score = a.confidence;
  return fields;
}

/** The fields of a review: its citations resolved to recorded versions. */
export async function reviewFields(workflow: Workflow, r: Review): Promise<Record<string, unknown>> {
  return {
    verdict: r.verdict,
    artifacts: await workflow.refs(r.artifacts.map(citation)),
    defects: r.defects,
    gates: r.gates,
    report: r.report,
    summary: r.summary ?? `Review: ${r.verdict}`,
  };
}

/**
 * Sends the request unless requestId was decided already. A request is built from the
 * state it is sent on (the next version, say), so building it again after it was recorded
 * would give other bytes under the same id, which the service refuses: the recorded
 * decision is looked up first instead.
 */
export async function submitOnce(
  workflow: Workflow,
  actor: string,
  kind: string,
  requestId: string,
  build: () => Promise<Record<string, unknown>>,
): Promise<Decision> {
  const log = await workflow.reader.log(workflow.tenant, workflow.id);
  const prior = log.entries.find((e) => e.decision.request_id === requestId);
  if (prior) return prior.decision;
  return workflow.submit(actor, kind, await build(), requestId);
}
