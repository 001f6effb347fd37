// The turn budget of a governed run. The SDK counts every model call of every agent as a
// turn (10 by default): a governed run makes several per handoff (a record, the handoff,
// a revision), so it ends a workflow early unless its budget is sized for the workflow.
import { MaxTurnsExceededError, type AgentInputItem, type RunResult, type Runner } from "@openai/agents";
import type { GovernedRun } from "./run.js";

/** The run used every turn it was allowed: what was decided, and where the workflow is. */
export class GovernedTurnsExhausted extends Error {
  override readonly name = "GovernedTurnsExhausted";
  readonly maxTurns: number;
  /** The workflow's status and state version when the run stopped. */
  readonly status: string;
  readonly stateVersion: number;

  constructor(run: GovernedRun, maxTurns: number, status: string, stateVersion: number, cause: unknown) {
    super(
      `handoff: the run used all its ${maxTurns} turns (maxTurns) after ${run.decisions.length} decisions, with ${run.current} acting; ` +
        `workflow ${run.workflow.id} is at ${status} (state version ${stateVersion}). ` +
        `Run again with a larger maxTurns (runGoverned's option or GovernedRun's): requests already decided answer their recorded decisions.`,
      { cause },
    );
    this.maxTurns = maxTurns;
    this.status = status;
    this.stateVersion = stateVersion;
  }

  /** err as a GovernedTurnsExhausted when it is the SDK's MaxTurnsExceededError, else err. */
  static async from(run: GovernedRun, maxTurns: number, err: unknown): Promise<unknown> {
    if (!(err instanceof MaxTurnsExceededError)) return err;
    const state = await run.workflow.state();
    return new GovernedTurnsExhausted(run, maxTurns, String(state.status), state.state_version, err);
  }
}

export interface RunGovernedOptions {
  /** The turns (model calls) the whole run may take; run.maxTurns by default. */
  maxTurns?: number;
  signal?: AbortSignal;
}

/**
 * Runs the governed run from its acting agent with a turn budget sized for a workflow
 * (run.maxTurns, not the SDK's 10); when the turns run out it rejects with
 * GovernedTurnsExhausted, which says how many were used and where the workflow is.
 */
export async function runGoverned(runner: Runner, run: GovernedRun, input: string | AgentInputItem[], options: RunGovernedOptions = {}): Promise<RunResult<any, any>> {
  const maxTurns = options.maxTurns ?? run.maxTurns;
  const agent = run.agents[run.current];
  if (!agent) throw new Error(`handoff: the run holds no agent ${run.current}`);
  try {
    return await runner.run(agent, input, { context: run, maxTurns, signal: options.signal });
  } catch (err) {
    throw await GovernedTurnsExhausted.from(run, maxTurns, err);
  }
}
