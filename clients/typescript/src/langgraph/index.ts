// Handoff for LangGraph: every edge between agent nodes is decided by the service.
export { HandoffState } from "./state.js";
export type { HandoffStateType, HandoffUpdate, Step } from "./state.js";
export { governedNode } from "./node.js";
export { startNode } from "./start.js";
export type { AgentInput, GovernedNodeOptions } from "./node.js";
export { handoffRouter } from "./router.js";
export type { RouterOptions } from "./router.js";
export { humanGate, prompts } from "./human.js";
export type { HumanAnswer, HumanPrompt } from "./human.js";
export { requestId } from "./decision.js";
export type { Ask } from "./decision.js";
