import type { Workflow } from "../workflow.js";
import { decided, requestId, stepOf } from "./decision.js";
import type { HandoffStateType, HandoffUpdate } from "./state.js";

/**
 * The graph's first node: it starts the workflow as actor (the host's system actor) with
 * the start's fields (brief, subject_id, ...; the envelope is filled by Workflow). Its
 * request_id is `WORKFLOW_ID:start:1`, so a graph run again, in this process or another,
 * finds the recorded start instead of sending a second one; the decision goes into the
 * graph state for handoffRouter, which takes it to the agent the start hands to.
 */
export function startNode(
  workflow: Workflow,
  actor: string,
  fields: Record<string, unknown> | (() => Record<string, unknown> | Promise<Record<string, unknown>>),
  name = "start",
): (state: HandoffStateType) => Promise<HandoffUpdate> {
  return async (state) => {
    const id = requestId(workflow, name, 1);
    const d = await workflow.submitOnce(actor, "start", id, async () => ({ pack: workflow.pack, ...(typeof fields === "function" ? await fields() : fields) }));
    return decided(name, 1, d, [stepOf(name, id, actor, { kind: "start", fields: {} }, d)], state.working);
  };
}
