// The JSON Schemas of the record and review tools' parameters, taken from the schemas the
// service serves for the pack (GET /v1/packs/{pack}/schemas): the model sees each field's
// type, enum, description and whether it is required, as the pack's contract has them.
import type { PackSchemas } from "../types.js";
import { inlineRefs, type JsonSchema } from "./inline-refs.js";

export type { PackSchemas };

/** The parameters of a tool: one JSON Schema object, references inlined. Its own fields
 * are open (the SDK's non-strict tools take no other kind; nothing reads another field);
 * the content within is as closed as its contract. */
export interface ToolParameters {
  type: "object";
  properties: Record<string, JsonSchema>;
  required: string[];
  additionalProperties: true;
  description?: string;
  $defs?: Record<string, unknown>;
}

const citations = (description: string): JsonSchema => ({ type: "array", items: { type: "string" }, description });

/**
 * The parameters of the tool recording an artifact of type: its content is the type's
 * served schema, the envelope fields are the pack's handoff fields they become
 * (summary → output_summary, confidence → confidence_score, ...).
 */
export function recordParameters(schemas: PackSchemas, type: string): ToolParameters {
  const served = schemas.artifacts[type] as JsonSchema | undefined;
  if (!served) throw new Error(`handoff: pack ${schemas.pack} serves no schema of artifact ${type} (its artifacts: ${Object.keys(schemas.artifacts).join(", ")})`);
  const handoff = requestSchema(schemas, "handoff");
  const field = (name: string, fallback: JsonSchema) => handoff.properties[name] ?? fallback;
  const output = (handoff.properties.output ?? {}) as JsonSchema;
  const outputField = (name: string, fallback: JsonSchema) => outputProperties(output)[name] ?? fallback;
  const { $defs, ...content } = inlineRefs(served);
  return withDefs(
    {
      type: "object",
      properties: {
        content: { ...content, description: described(content, `The ${type} itself, as the ${schemas.pack} pack's contract defines it`) },
        inputs: citations("What it builds on, as recorded versions: TYPE (the latest), TYPE@N or TYPE@approved"),
        summary: describedSchema(field("output_summary", { type: "string" }), "One line on what the artifact is"),
        // The served descriptions of these speak of the request, not of what to write.
        assumptions: { ...field("assumptions", { type: "array", items: { type: "string" } }), description: "What you assumed; [] for none" },
        limitations: { ...field("limitations", { type: "array", items: { type: "string" } }), description: "What the artifact does not cover; [] for none" },
        confidence: { ...field("confidence_score", { type: "number", minimum: 0, maximum: 1 }), description: "How sure you are of the artifact, from 0 to 1" },
        supersedes: outputField("supersedes", { type: "integer", minimum: 1, description: "The version a revision replaces" }),
        justification: outputField("justification", { type: "string", description: "Why a revision replaces the earlier version" }),
        // The skills the producer ran on it, where the pack's handoff carries them.
        ...optional(handoff, "attestations"),
      },
      // Every handoff that delivers an artifact must carry the producer's confidence: the
      // service blocks one without it (MISSING_CONFIDENCE); the other envelope fields
      // have defaults (handoffFields sends [] for none).
      required: ["content", "confidence"],
      additionalProperties: true,
    },
    { ...handoff.$defs, ...($defs as Record<string, unknown> | undefined) },
  );
}

/**
 * The parameters of the tool recording a review: the verdict, defects, gate results,
 * report and attestations (where the pack has them) as the pack's review request has them; the reviewed versions are cited as
 * TYPE@N and resolved to recorded versions when the review is submitted.
 */
export function reviewParameters(schemas: PackSchemas): ToolParameters {
  const review = requestSchema(schemas, "review");
  const field = (name: string, fallback: JsonSchema) => review.properties[name] ?? fallback;
  return withDefs(
    {
      type: "object",
      properties: {
        verdict: field("verdict", { type: "string", description: "ACCEPT, REVISE or REJECT" }),
        artifacts: citations("The reviewed versions: TYPE@N"),
        defects: field("defects", { type: "array", items: { type: "object" } }),
        gates: field("gates", { type: "array", items: { type: "object" } }),
        report: field("report", { type: "object" }),
        summary: field("summary", { type: "string" }),
        // The reviewer's word on the gates no machine decides, where the pack's review carries it.
        ...optional(review, "attestations"),
      },
      required: ["verdict", "artifacts"],
      additionalProperties: true,
    },
    review.$defs,
  );
}

interface RequestSchema {
  properties: Record<string, JsonSchema>;
  $defs: Record<string, unknown> | undefined;
}

/** The served schema of one request kind, its references inlined. */
function requestSchema(schemas: PackSchemas, kind: string): RequestSchema {
  const served = schemas.requests[kind] as JsonSchema | undefined;
  if (!served) throw new Error(`handoff: pack ${schemas.pack} serves no schema of ${kind} requests`);
  const { properties, $defs } = inlineRefs(served) as { properties?: Record<string, JsonSchema>; $defs?: Record<string, unknown> };
  return { properties: properties ?? {}, $defs };
}

/** The fields every branch of a handoff's output has (the Output definition the served
 * schema combines with one branch per artifact type). */
function outputProperties(output: JsonSchema): Record<string, JsonSchema> {
  const parts = [output, ...((output.allOf ?? []) as JsonSchema[])];
  return Object.assign({}, ...parts.map((p) => (p.properties ?? {}) as Record<string, JsonSchema>));
}

/** The request's field name, as the pack serves it, or nothing when its requests have none. */
function optional(request: RequestSchema, name: string): Record<string, JsonSchema> {
  const schema = request.properties[name];
  return schema ? { [name]: schema } : {};
}

function described(schema: JsonSchema, fallback: string): string {
  return typeof schema.description === "string" && schema.description !== "" ? schema.description : fallback;
}

/** schema, with fallback as its description when the served one has none. */
function describedSchema(schema: JsonSchema, fallback: string): JsonSchema {
  return { ...schema, description: described(schema, fallback) };
}

function withDefs(parameters: ToolParameters, defs: Record<string, unknown> | undefined): ToolParameters {
  return defs && Object.keys(defs).length > 0 ? { ...parameters, $defs: defs } : parameters;
}
