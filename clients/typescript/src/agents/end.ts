import { Agent, Usage, type Model, type ModelResponse } from "@openai/agents";
import type { Decision } from "../types.js";

/** The name of the agent that ends a run when a decision names no agent to run next. */
export const END = "handoff_end";

/** A model that answers one fixed message: it ends the run without another model call. */
class FixedAnswer implements Model {
  constructor(readonly text: string) {}

  async getResponse(): Promise<ModelResponse> {
    return { usage: new Usage(), output: [message(this.text)] };
  }

  async *getStreamedResponse() {
    yield {
      type: "response_done" as const,
      response: { id: END, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, output: [message(this.text)] },
    };
  }
}

function message(text: string) {
  return { type: "message" as const, role: "assistant" as const, status: "completed" as const, content: [{ type: "output_text" as const, text }] };
}

/**
 * The agent a run hands off to when the workflow goes on outside it (delivered, or
 * waiting on no agent the run holds): its final output is the decision, as JSON.
 */
export function endAgent(decision: Decision): Agent {
  const summary = {
    outcome: decision.outcome,
    status_after: decision.status_after,
    state_version: decision.state_version,
    next: (decision.next ?? []).map((n) => n.agent),
    decision_id: decision.decision_id,
  };
  return new Agent({ name: END, instructions: "", model: new FixedAnswer(JSON.stringify(summary)) });
}
