// Reads the campaign pack's scenarios: the requests the engine's own tests decide. The
// example plays them instead of inventing contents the contracts would refuse.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface Step {
  name: string;
  request: Record<string, unknown>;
  expect: { outcome: string; reasons: string[]; status_after?: string; next?: string[] };
}

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const dir = resolve(repo, "policies_test/handoff/campaign/scenarios");

/** The steps of one scenario file, e.g. "11-s1-targeted-repair". */
export function scenario(name: string): Step[] {
  return (JSON.parse(readFileSync(resolve(dir, `${name}.scenario`), "utf8")) as { steps: Step[] }).steps;
}

/** One step of a scenario, by its request_id. */
export function step(file: string, requestId: string): Step {
  const s = scenario(file).find((x) => x.request.request_id === requestId);
  if (!s) throw new Error(`no step ${requestId} in ${file}`);
  return s;
}

const envelope = ["request_id", "kind", "tenant_id", "organization_id", "trace_id", "actor", "workflow_id"];

/** The request's own fields, without its envelope (the Workflow fills that). */
export function fieldsOf(s: Step): Record<string, unknown> {
  return Object.fromEntries(Object.entries(s.request).filter(([k]) => !envelope.includes(k)));
}

/** A handoff step as the arguments of an artifact tool call. */
export function artifactArgs(s: Step): Record<string, unknown> {
  const r = s.request as {
    input_artifacts: string[];
    output: { content: unknown; supersedes?: number; justification?: string };
    output_summary?: string;
    assumptions?: string[];
    limitations?: string[];
    confidence_score?: number;
  };
  const args: Record<string, unknown> = {
    content: r.output.content,
    inputs: r.input_artifacts,
    summary: r.output_summary,
    assumptions: r.assumptions,
    limitations: r.limitations,
    confidence: r.confidence_score,
  };
  if (r.output.supersedes !== undefined) args.supersedes = r.output.supersedes;
  if (r.output.justification !== undefined) args.justification = r.output.justification;
  return args;
}

/** A review step as the arguments of the review tool call. */
export function reviewArgs(s: Step): Record<string, unknown> {
  const { verdict, artifacts, defects, gates, report, summary } = s.request;
  return { verdict, artifacts, defects, gates, report, summary };
}
