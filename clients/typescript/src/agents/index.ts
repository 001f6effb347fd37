// The OpenAI Agents SDK adapter: every handoff between agents is a Handoff request first.
export { governed, governedHandoff } from "./handoff.js";
export type { GovernedOptions } from "./handoff.js";
export { GovernedRun, governedRunOf } from "./run.js";
export type { GovernedRunOptions, NextInput } from "./run.js";
export { runGoverned, GovernedTurnsExhausted } from "./turns.js";
export type { RunGovernedOptions } from "./turns.js";
export { artifactTool, reviewTool } from "./tools.js";
export { contractTools } from "./contract.js";
export type { ContractToolsOptions } from "./contract.js";
export type { ArtifactToolOptions, ReviewToolOptions } from "./tools.js";
export { recordParameters, reviewParameters } from "./parameters.js";
export type { PackSchemas, ToolParameters } from "./parameters.js";
export { HandoffBlocked, UnsubmittedArtifacts } from "./errors.js";
export { END, endAgent } from "./end.js";
export type { Attestation, Review, Recorded } from "./submit.js";
