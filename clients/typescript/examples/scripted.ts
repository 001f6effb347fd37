// A model provider that plays fixed turns per agent: no network, no API key. Each turn is
// what one model call answers (tool calls, handoff calls, or a message); every request
// the model got is kept, so a test can see exactly what an agent was given.
import type { AgentInputItem, AgentOutputItem, Model, ModelProvider } from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall } from "@openai/agents/testing";

export class Scripts implements ModelProvider {
  readonly #models = new Map<string, ScriptedModel>();

  /** Adds turns to agent's script (the agent's model name is its pack id). */
  add(agent: string, ...turns: AgentOutputItem[][]): this {
    const model = this.#models.get(agent) ?? new ScriptedModel();
    model.enqueue(...turns);
    this.#models.set(agent, model);
    return this;
  }

  getModel(name?: string): Model {
    const model = name === undefined ? undefined : this.#models.get(name);
    if (!model) throw new Error(`no script for the model of ${name}`);
    return model;
  }

  /** The inputs agent's model was called with, one per call. */
  inputs(agent: string): AgentInputItem[][] {
    return (this.#models.get(agent)?.calls ?? []).map((c) => (typeof c.request.input === "string" ? [{ role: "user", content: c.request.input } as AgentInputItem] : [...c.request.input]));
  }

  /** How many times agent's model was called. */
  calls(agent: string): number {
    return this.#models.get(agent)?.calls.length ?? 0;
  }
}

/** A tool or handoff call of a scripted turn. */
export function call(name: string, args: Record<string, unknown>, callId: string): AgentOutputItem {
  return functionCall(name, args, { callId });
}

/** A final message of a scripted turn. */
export function say(text: string): AgentOutputItem {
  return assistantMessage(text);
}
