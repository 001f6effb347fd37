// The OpenAI Agents SDK adapter: every handoff between agents is a Handoff request first.
export { governed, governedHandoff } from "./handoff.js";
export type { GovernedOptions } from "./handoff.js";
export { GovernedRun, governedRunOf } from "./run.js";
export type { GovernedRunOptions } from "./run.js";
export { artifactTool, reviewTool } from "./tools.js";
export { contractTools } from "./contract.js";
export type { ContractToolsOptions } from "./contract.js";
export type { ArtifactToolOptions } from "./tools.js";
export { HandoffBlocked } from "./errors.js";
export { END, endAgent } from "./end.js";
export type { Review, Recorded } from "./submit.js";
