import { tool, type RunContext } from "@openai/agents";
import { governedRunOf } from "./run.js";
import type { Produced } from "../workflow.js";
import type { Attestation, Recorded, Review } from "./submit.js";
import { recordParameters, reviewParameters, type PackSchemas, type ToolParameters } from "./parameters.js";

// Without the pack's schemas, loose ones: the pack's CUE contract checks the content.
const strings = { type: "array", items: { type: "string" } } as const;
const anyArtifact: ToolParameters = {
  type: "object",
  properties: {
    content: { type: "object", description: "The artifact, as the pack's contract defines it" },
    inputs: { ...strings, description: "What it builds on: TYPE, TYPE@N or TYPE@approved" },
    summary: { type: "string" },
    assumptions: strings,
    limitations: strings,
    confidence: { type: "number", minimum: 0, maximum: 1 },
    supersedes: { type: "integer", description: "The version a revision replaces" },
    justification: { type: "string" },
    attestations: { type: "array", items: { type: "object" }, description: "The skills you ran on it, where the pack asks for them" },
  },
  required: ["content", "confidence"],
  additionalProperties: true,
};
const anyReview: ToolParameters = {
  type: "object",
  properties: {
    verdict: { type: "string", description: "ACCEPT, REVISE or REJECT" },
    artifacts: { ...strings, description: "The reviewed versions: TYPE@N" },
    defects: { type: "array", items: { type: "object" } },
    gates: { type: "array", items: { type: "object" } },
    attestations: { type: "array", items: { type: "object" }, description: "Your word on the gates no machine decides, where the pack asks for it" },
    report: { type: "object" },
    summary: { type: "string" },
  },
  required: ["verdict", "artifacts"],
  additionalProperties: true,
};

export interface ArtifactToolOptions {
  /** The task_type of the handoff that submits it (research, copy, ...). */
  taskType: string;
  /** The tool's name; record_<type> by default. */
  name?: string;
  description?: string;
  /** The pack's served schemas (GET /v1/packs/{pack}/schemas): the tool's parameters are
   * then the artifact's content as its contract types it. Any object without them. */
  schemas?: PackSchemas;
}

/**
 * A tool that records an artifact of type (one of the pack's contracts) in the run, with
 * the attestations of the skills run on it. The agent's next governed handoff submits it
 * as a handoff's output (several recorded artifacts: one handoff each, in order): nothing
 * is sent now.
 */
export function artifactTool(type: string, options: ArtifactToolOptions) {
  return tool({
    name: options.name ?? `record_${type.toLowerCase()}`,
    description: options.description ?? `Record the ${type} you produced; your next handoff submits it.`,
    parameters: options.schemas ? recordParameters(options.schemas, type) : anyArtifact,
    strict: false,
    execute: (input: unknown, ctx?: RunContext<unknown>) => {
      const { attestations, ...a } = input as Omit<Produced, "type"> & { attestations?: Attestation[] };
      const recorded: Recorded = { kind: "handoff", taskType: options.taskType, artifact: { ...a, type, inputs: a.inputs ?? [] } };
      if (attestations !== undefined) recorded.attestations = attestations;
      return governedRunOf(ctx).record(recorded);
    },
  });
}

export interface ReviewToolOptions {
  name?: string;
  description?: string;
  /** The pack's served schemas: the verdict, defects, gates and report are then typed as
   * the pack's review request has them. */
  schemas?: PackSchemas;
}

/** A tool that records a QA verdict; the agent's next governed handoff submits it as a review. */
export function reviewTool(options: ReviewToolOptions = {}) {
  return tool({
    name: options.name ?? "record_review",
    description: options.description ?? "Record your verdict on the artifacts; your next handoff submits it.",
    parameters: options.schemas ? reviewParameters(options.schemas) : anyReview,
    strict: false,
    execute: (input: unknown, ctx?: RunContext<unknown>) => {
      const r = input as Partial<Review> & Pick<Review, "verdict" | "artifacts">;
      return governedRunOf(ctx).record({ kind: "review", review: { defects: [], gates: [], ...r } });
    },
  });
}
