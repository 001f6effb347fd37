// The campaign scenarios' steps as the scripted model's tool calls: the example plays the
// requests the engine's own tests decide instead of inventing contents the contracts
// would refuse.
import { step as scenarioStep, type ScenarioStep } from "./scenarios.js";

/** One step of policies_test/handoff/campaign/scenarios/<file>.scenario, by request_id. */
export function step(file: string, requestId: string): ScenarioStep {
  return scenarioStep("campaign", `${file}.scenario`, requestId);
}

/** A handoff step as the arguments of an artifact tool call. */
export function artifactArgs(s: ScenarioStep): Record<string, unknown> {
  const r = s.fields as {
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
export function reviewArgs(s: ScenarioStep): Record<string, unknown> {
  const { verdict, artifacts, defects, gates, report, summary } = s.fields;
  return { verdict, artifacts, defects, gates, report, summary };
}
