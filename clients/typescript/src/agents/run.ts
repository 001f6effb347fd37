import type { Agent, RunContext } from "@openai/agents";
import type { Workflow } from "../workflow.js";
import { untrusted } from "../workflow.js";
import type { Decision } from "../types.js";
import { endAgent } from "./end.js";
import { HandoffBlocked } from "./errors.js";
import { reviewFields, type Recorded } from "./submit.js";

export interface GovernedRunOptions {
  workflow: Workflow;
  /** The pack's agent ids and the SDK agents that play them. */
  agents: Record<string, Agent<any, any>>;
  /** The pack id of the agent the run starts with. */
  start: string;
  /** The version of the decision that gave start its task (the start's, say). */
  stateVersion?: number;
  /** How often to look for a person's decision while the run waits. Default 500 ms. */
  pollMs?: number;
  /** Abandons a wait for a person. */
  signal?: AbortSignal;
  /** Called with every decision the run submitted (by the acting agent's id) or waited
   * for (by "human"), in order. */
  onDecision?: (decision: Decision, by: string) => void;
}

/**
 * The state of one SDK run over one Handoff workflow: pass it as the run's `context`.
 * It knows which pack agent is acting (the run's start, then whoever each decision named),
 * holds what its tools recorded for the next handoff, and turns each handoff into a
 * request and each decision into the agent that runs next and the input it gets.
 */
export class GovernedRun {
  readonly workflow: Workflow;
  readonly agents: Record<string, Agent<any, any>>;
  readonly decisions: Decision[] = [];
  /** The pack id of the agent acting now. */
  current: string;
  #version: number;
  #recorded: Recorded | undefined;
  #input: string | undefined;
  readonly #options: GovernedRunOptions;

  constructor(options: GovernedRunOptions) {
    this.workflow = options.workflow;
    this.agents = options.agents;
    this.current = options.start;
    this.#version = options.stateVersion ?? 0;
    this.#options = options;
  }

  /** Keeps what a tool of the acting agent produced, for its next handoff. */
  record(r: Recorded): void {
    this.#recorded = r;
  }

  /**
   * Submits the acting agent's handoff to target (a pack id) and answers the agent that
   * runs next. Throws HandoffBlocked when the service stops it.
   */
  async handoff(target: string, preferred: string, taskType?: string): Promise<Agent<any, any>> {
    const source = this.current;
    const r = this.#recorded;
    const wf = this.workflow;
    // The id comes from the tool call that produced the request: resending is safe.
    const requestId = `${wf.id}:${r?.callId ?? `${source}>${target}@${this.#version}`}`;
    const decision =
      r?.kind === "review"
        ? await wf.submitOnce(source, "review", requestId, () => reviewFields(wf, r.review))
        : await wf.submitOnce(source, "handoff", requestId, () => wf.handoffFields(source, target, r?.taskType ?? taskType, r?.artifact));
    this.#recorded = undefined;
    this.#seen(decision, source);
    return this.#route(decision, preferred);
  }

  /** The input of the agent the last handoff chose; read once, by the input filter. */
  takeInput(): string | undefined {
    const input = this.#input;
    this.#input = undefined;
    return input;
  }

  async #route(decision: Decision, preferred: string): Promise<Agent<any, any>> {
    for (;;) {
      switch (decision.outcome) {
        case "allow": {
          const names = (decision.next ?? []).map((n) => n.agent ?? "").filter((a) => a in this.agents);
          const next = names.includes(preferred) ? preferred : names[0];
          return this.#give(decision, next, "");
        }
        case "revise": {
          // Only the producer of what must change goes back, with the defects.
          const revise = decision.revise ?? [];
          const producer = revise.map((r) => r.producer ?? "").find((p) => p in this.agents) ?? decision.next?.[0]?.agent;
          const defects = revise.filter((r) => r.producer === producer).map((r) => ({ artifact: r.artifact, defects: r.defects }));
          const note = `\nReturned for revision. The defects below are data from the reviewer:\n${JSON.stringify({ untrusted_data: defects }, null, 2)}`;
          return this.#give(decision, producer !== undefined && producer in this.agents ? producer : undefined, note);
        }
        case "await_human": {
          // The run waits here until a person decides through the service.
          decision = await this.workflow.waitForHuman(decision, { pollMs: this.#options.pollMs, signal: this.#options.signal });
          this.#seen(decision, "human");
          continue;
        }
        default:
          throw new HandoffBlocked(decision);
      }
    }
  }

  #give(decision: Decision, agent: string | undefined, note: string): Agent<any, any> {
    if (agent === undefined) {
      this.#input = `The workflow goes on outside this run: ${decision.status_after}.`;
      return endAgent(decision);
    }
    this.current = agent;
    this.#input = untrusted(decision, agent) + note;
    return this.agents[agent]!;
  }

  #seen(decision: Decision, by: string): void {
    if (decision.state_version !== undefined) this.#version = decision.state_version;
    this.decisions.push(decision);
    this.#options.onDecision?.(decision, by);
  }
}

/** The GovernedRun of a run context; throws when the run was started without one. */
export function governedRunOf(ctx: RunContext<unknown> | undefined): GovernedRun {
  const run = ctx?.context;
  if (!(run instanceof GovernedRun)) {
    throw new Error("handoff: run the agents with a GovernedRun as the context: run(agent, input, { context: new GovernedRun(...) })");
  }
  return run;
}
