export { HandoffClient } from "./client.js";
export type { CallOptions, ClientOptions, NextOptions, WorkflowFilters } from "./client.js";
export { HandoffError, NETWORK, TIMEOUT } from "./errors.js";
export { Workflow, untrusted } from "./workflow.js";
export { contextFor } from "./workflow.js";
export type { ArtifactCitation, Participant, Produced, WorkflowOptions } from "./workflow.js";
export type * from "./types.js";
