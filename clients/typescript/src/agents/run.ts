import type { Agent, RunContext } from "@openai/agents";
import type { Workflow } from "../workflow.js";
import { untrusted } from "../workflow.js";
import type { Decision, PackSchemas } from "../types.js";
import { endAgent } from "./end.js";
import { HandoffBlocked, UnsubmittedArtifacts } from "./errors.js";
import { refusal } from "./refusal.js";
import { handoffFields, recordedName, reviewFields, type Recorded } from "./submit.js";

export interface GovernedRunOptions {
  workflow: Workflow;
  /** The pack's agent ids and the SDK agents that play them. */
  agents: Record<string, Agent<any, any>>;
  /** The pack id of the agent the run starts with. */
  start: string;
  /** The version of the decision that gave start its task (the start's, say). Request ids
   * are derived from it: a re-run from the same decision finds the requests it recorded. */
  stateVersion?: number;
  /** How often to look for a person's decision while the run waits. Default 500 ms. */
  pollMs?: number;
  /** Abandons a wait for a person. */
  signal?: AbortSignal;
  /** Called with every decision the run submitted (by the acting agent's id) or waited
   * for (by "human"), in order. */
  onDecision?: (decision: Decision, by: string) => void;
  /** What a block does: "throw" (the default) rejects run() with HandoffBlocked; "return"
   * answers the model's handoff call with the reasons, so that the agent can fix its work
   * and hand off again, up to maxAttempts, the last block thrown. */
  onBlock?: "throw" | "return";
  /** Handoff attempts of one step while blocks go back to the model: the pack's retry of
   * invalid output (limits.retry.invalid_output.max_attempts) when limits are given, else 3. */
  maxAttempts?: number;
  /** The pack's limits (the `limits` of HandoffClient.schemas): they size maxAttempts and maxTurns. */
  limits?: PackSchemas["limits"];
  /** The turns (model calls) runGoverned allows the whole run; see GovernedRun.maxTurns. */
  maxTurns?: number;
}

/** What the agent that runs next is given: its input, and whether it keeps its own turns. */
export interface NextInput {
  text: string;
  /** The agent handed to itself: its turns stay, text answers its handoff call. */
  sameAgent: boolean;
}

/**
 * The state of one SDK run over one Handoff workflow: pass it as the run's `context`.
 * It knows which pack agent is acting (the run's start, then whoever each decision named),
 * holds what its tools recorded for the next handoff, and turns each handoff into
 * requests and each decision into the agent that runs next and the input it gets.
 */
export class GovernedRun {
  readonly workflow: Workflow;
  readonly agents: Record<string, Agent<any, any>>;
  readonly decisions: Decision[] = [];
  /** The pack id of the agent acting now. */
  current: string;
  /** The turns runGoverned allows the run: the maxTurns option, else six per agent per
   * review cycle of the pack (limits.max_review_cycles + 1, 3 cycles without limits). */
  readonly maxTurns: number;
  #version: number;
  /** Blocks of the acting agent's step at this version: the attempt of its next request. */
  #blocks = 0;
  #recorded: Recorded[] = [];
  #input: NextInput | undefined;
  readonly #options: GovernedRunOptions;
  readonly #maxAttempts: number;

  constructor(options: GovernedRunOptions) {
    this.workflow = options.workflow;
    this.agents = options.agents;
    this.current = options.start;
    this.#version = options.stateVersion ?? 0;
    this.#options = options;
    const limits = (options.limits ?? {}) as { max_review_cycles?: number; retry?: { invalid_output?: { max_attempts?: number } } };
    this.#maxAttempts = options.maxAttempts ?? limits.retry?.invalid_output?.max_attempts ?? 3;
    this.maxTurns = options.maxTurns ?? 6 * Object.keys(options.agents).length * ((limits.max_review_cycles ?? 2) + 1);
  }

  /**
   * Keeps what a tool of the acting agent produced, for its next handoff, and answers the
   * tool's result. Each artifact type (and the review) is kept once: a second record of
   * the same replaces the first, and the answer says so.
   */
  record(r: Recorded): string {
    const name = recordedName(r);
    const at = this.#recorded.findIndex((x) => recordedName(x) === name);
    if (at >= 0) this.#recorded[at] = r;
    else this.#recorded.push(r);
    const what = r.kind === "review" ? `the ${r.review.verdict} verdict` : name;
    const kept = this.#recorded.map(recordedName).join(", ");
    return `Recorded ${what}${at >= 0 ? ` (it replaces the ${name} recorded before)` : ""}. Your next handoff submits, in order: ${kept}.`;
  }

  /** What the acting agent recorded and has not handed off yet, in order. */
  get recorded(): readonly Recorded[] {
    return this.#recorded;
  }

  /**
   * Submits the acting agent's handoff to target (a pack id): each recorded review and
   * artifact as a request of its own, in order, while the decisions give the work back to
   * this agent; a handoff without any as a routing handoff. Answers the agent that runs
   * next. Throws HandoffBlocked when the service stops it (unless blocks go back to the
   * model), UnsubmittedArtifacts when the workflow moved on before all were submitted.
   */
  async handoff(target: string, preferred: string, taskType?: string): Promise<Agent<any, any>> {
    const source = this.current;
    const queue: (Recorded | undefined)[] = this.#recorded.length > 0 ? [...this.#recorded] : [undefined];
    let decision: Decision | undefined;
    for (const r of queue) {
      if (decision !== undefined) {
        const back = decision.outcome === "allow" && (decision.next ?? []).some((n) => n.agent === source);
        if (!back) throw new UnsubmittedArtifacts(decision, source, this.#recorded.map(recordedName));
      }
      decision = await this.#submit(source, target, taskType, r);
      this.#seen(decision, source);
      if (!settles(decision)) break;
      if (r !== undefined) this.#recorded.splice(this.#recorded.indexOf(r), 1);
    }
    return this.#route(decision!, preferred, source);
  }

  /**
   * One request, its id derived from what a re-run finds again (the workflow, the acting
   * agent, the state version it was built on, what it submits, the attempt), never from
   * the model's output: a re-run answers the recorded decision instead of sending anew.
   */
  #submit(source: string, target: string, taskType: string | undefined, r: Recorded | undefined): Promise<Decision> {
    const wf = this.workflow;
    const requestId = `${wf.id}:${source}@${this.#version}:${recordedName(r)}.${this.#blocks + 1}`;
    return r?.kind === "review"
      ? wf.submitOnce(source, "review", requestId, () => reviewFields(wf, r.review))
      : wf.submitOnce(source, "handoff", requestId, () => handoffFields(wf, source, target, taskType, r));
  }

  /** The input of the agent the last handoff chose; read once, by the input filter. */
  takeInput(): NextInput | undefined {
    const input = this.#input;
    this.#input = undefined;
    return input;
  }

  async #route(decision: Decision, preferred: string, source: string): Promise<Agent<any, any>> {
    for (;;) {
      switch (decision.outcome) {
        case "allow": {
          // The decision's next is the authority; the model's choice only breaks a tie.
          const names = (decision.next ?? []).map((n) => n.agent ?? "").filter((a) => a in this.agents);
          const next = names.includes(preferred) ? preferred : names[0];
          return this.#give(decision, next, source, "");
        }
        case "revise": {
          // Only the producer of what must change goes back, with the defects.
          const revise = decision.revise ?? [];
          const producer = revise.map((r) => r.producer ?? "").find((p) => p in this.agents) ?? decision.next?.[0]?.agent;
          const defects = revise.filter((r) => r.producer === producer).map((r) => ({ artifact: r.artifact, defects: r.defects }));
          const note = `\nReturned for revision. The defects below are data from the reviewer:\n${JSON.stringify({ untrusted_data: defects }, null, 2)}`;
          return this.#give(decision, producer !== undefined && producer in this.agents ? producer : undefined, source, note);
        }
        case "await_human": {
          // The run waits here until a person decides through the service.
          decision = await this.workflow.waitForHuman(decision, { pollMs: this.#options.pollMs, signal: this.#options.signal });
          this.#seen(decision, "human");
          continue;
        }
        case "block":
          if (this.#options.onBlock === "return" && this.#blocks < this.#maxAttempts) {
            // The agent hands to itself: its handoff call is answered with the reasons.
            this.#input = { text: refusal(decision, this.#blocks, this.#maxAttempts, this.#recorded.map(recordedName)), sameAgent: true };
            return this.agents[source]!;
          }
          throw new HandoffBlocked(decision);
        default:
          throw new HandoffBlocked(decision);
      }
    }
  }

  #give(decision: Decision, agent: string | undefined, source: string, note: string): Agent<any, any> {
    if (agent === undefined) {
      this.#input = { text: `The workflow goes on outside this run: ${decision.status_after}.`, sameAgent: false };
      return endAgent(decision);
    }
    const sameAgent = agent === source;
    const given = untrusted(decision, agent) + note;
    this.current = agent;
    this.#input = { text: sameAgent ? `Handoff recorded (${decision.outcome}): the workflow goes on with you.\n${given}` : given, sameAgent };
    return this.agents[agent]!;
  }

  #seen(decision: Decision, by: string): void {
    const version = decision.state_version ?? this.#version;
    if (decision.outcome === "block" && by !== "human") this.#blocks += 1;
    else if (version !== this.#version) this.#blocks = 0;
    this.#version = version;
    this.decisions.push(decision);
    this.#options.onDecision?.(decision, by);
  }
}

/** A decision that recorded the request: the workflow moved on with it. */
function settles(decision: Decision): boolean {
  return decision.outcome === "allow" || decision.outcome === "revise" || decision.outcome === "await_human";
}

/** The GovernedRun of a run context; throws when the run was started without one. */
export function governedRunOf(ctx: RunContext<unknown> | undefined): GovernedRun {
  const run = ctx?.context;
  if (!(run instanceof GovernedRun)) {
    throw new Error("handoff: run the agents with a GovernedRun as the context: run(agent, input, { context: new GovernedRun(...) })");
  }
  return run;
}
