// The service's shapes, named. Every one comes from src/generated/openapi.ts, which
// `npm run generate` writes from service/openapi.json (a test fails when it is stale).
import type { components, operations } from "./generated/openapi.js";

type Schemas = components["schemas"];

/** A request as the engine takes it: each kind's fields are its pack's CUE contract. */
export type Request = Schemas["Request"];
export type Actor = Schemas["Actor"];
export type ArtifactRef = Schemas["ArtifactRef"];
/** The engine's answer. A block is a Decision, not an error. */
export type Decision = Schemas["Decision"];
export type Outcome = Decision["outcome"];
export type Reason = Schemas["Reason"];
export type Next = Schemas["Next"];
export type Revise = Schemas["Revise"];
export type State = Schemas["State"];
export type WorkflowList = Schemas["WorkflowList"];
export type WorkflowSummary = Schemas["WorkflowSummary"];
export type WorkflowLog = Schemas["WorkflowLog"];
export type Entry = Schemas["Entry"];
export type AuditLog = Schemas["AuditLog"];
export type VerifyReport = Schemas["VerifyReport"];
export type Explanation = Schemas["Explanation"];
export type Status = Schemas["Status"];
/** A pack's contract tables, as exported from its CUE. */
export type Contract = Schemas["Contract"];
export type ContractAgent = Schemas["ContractAgent"];
export type ContractArtifact = Schemas["ContractArtifact"];
export type PackSchemas = Schemas["PackSchemas"];
export type PackSchemasAnswer = Schemas["PackSchemasAnswer"];
export type ServiceError = Schemas["Error"];
/** The principal a token names: the tenant and actor its requests must name. */
export type Principal = Schemas["Principal"];
/** What a workflow waits for: who may act, what each may send and cite (handoffctl next -o json). */
export type Waiting = Schemas["Waiting"];
export type Party = Schemas["Party"];
export type Step = Schemas["Step"];
export type Citation = Schemas["Citation"];
export type Lead = Schemas["Lead"];
/** A request skeleton of a pack (handoffctl template -o json). */
export type RequestTemplate = Schemas["RequestTemplate"];
/** A request skeleton filled for one workflow, with the placeholders of versions not recorded yet. */
export type FilledTemplate = Schemas["FilledTemplate"];
/** Which request a template is for: target makes a handoff's skeleton, source and output choose among the agents and types. */
export type TemplateOptions = Omit<NonNullable<operations["getTemplate"]["parameters"]["query"]>, "workflow_id">;
