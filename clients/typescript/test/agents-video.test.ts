// The Agents SDK adapter on the video pack, against a real `handoffctl serve`: agents that
// both review and produce, attestations, several artifacts before one handoff, handoffs
// the decision routes back to the same agent, blocks the model revises, re-runs with new
// tool call ids, turn budgets and stream events. The model is scripted.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Runner, setTracingDisabled, type AgentInputItem } from "@openai/agents";
import { HandoffClient, Workflow, type Contract, type Decision } from "../src/index.js";
import { GovernedRun, GovernedTurnsExhausted, HandoffBlocked, UnsubmittedArtifacts, artifactTool, contractTools, runGoverned, type GovernedRunOptions, type PackSchemas } from "../src/agents/index.js";
import { step as scenarioStep, type ScenarioStep } from "../examples/scenarios.js";
import { Scripts, call, say } from "../examples/scripted.js";
import { videoParticipants, videoPrincipals, videoTeam } from "../examples/video-team.js";
import { runVideo } from "../examples/video-agents.js";
import { startServe, type Served } from "./serve.js";

setTracingDisabled(true);

let served: Served;
let contract: Contract;
let schemas: PackSchemas;
let n = 0;

before(async () => {
  served = await startServe(videoPrincipals);
  const client = new HandoffClient({ baseUrl: served.url, token: served.tokens["studio-orchestrator"]! });
  [contract, schemas] = await Promise.all([client.contract("video"), client.schemas("video")]);
});
after(async () => {
  await served?.stop();
});

const S01 = "01-happy-path.scenario";
const S03 = "03-seed-example-a6-humanize-failed.scenario";
const step = (file: string, id: string) => scenarioStep("video", file, id);
const text = (items: unknown) => JSON.stringify(items);

function workflow(): Workflow {
  return new Workflow({ tenant: "baimengke", organization: "baimengke-studio", workflowId: `wf-video-agents-${++n}`, pack: "video", participants: videoParticipants(served) });
}

/** Submits a scenario's steps as recorded: the workflow up to where a test begins. */
async function upTo(wf: Workflow, file: string, ids: string[]): Promise<Decision> {
  let last: Decision | undefined;
  for (const id of ids) {
    const s = step(file, id);
    last = await wf.submit(s.actor, s.kind, s.fields, `${wf.id}:${id}`);
    assert.equal(last.outcome, s.expect.outcome, `${id}: ${JSON.stringify(last.reasons)}`);
  }
  return last!;
}

/** A handoff step as the arguments of a record tool call, its attestations included. */
function recordArgs(s: ScenarioStep, inputs?: string[]): Record<string, unknown> {
  const f = s.fields as { input_artifacts: string[]; output: { content: unknown; supersedes?: number; justification?: string }; confidence_score?: number; attestations?: unknown[] };
  const args: Record<string, unknown> = { content: f.output.content, inputs: inputs ?? f.input_artifacts, confidence: f.confidence_score };
  if (f.output.supersedes !== undefined) Object.assign(args, { supersedes: f.output.supersedes, justification: f.output.justification });
  if (f.attestations) args.attestations = f.attestations;
  return args;
}

/** A review step as the arguments of the review tool call. */
function reviewArgs(s: ScenarioStep): Record<string, unknown> {
  const { verdict, artifacts, defects, gates, attestations, summary } = s.fields;
  return { verdict, artifacts, defects, gates, attestations, summary };
}

function governedRun(wf: Workflow, start: string, from: Decision | undefined, options: Partial<GovernedRunOptions> = {}): GovernedRun {
  return new GovernedRun({ workflow: wf, agents: videoTeam(contract, schemas), start, stateVersion: from?.state_version, pollMs: 50, ...options });
}

const runner = (scripts: Scripts) => new Runner({ modelProvider: scripts, tracingDisabled: true });

type Parameters = { properties: Record<string, { items?: { properties?: Record<string, { enum?: string[] }> } }> };
const parametersOf = (t: unknown) => (t as { parameters: Parameters }).parameters;

describe("tools of an agent that reviews and produces", () => {
  test("the screenwriter gets the review tool and a record tool per artifact it produces, both taking attestations", () => {
    const tools = contractTools(contract, schemas, "screenwriter", { taskTypes: { A2: "scriptwriting", A3: "scriptwriting", A6: "scriptwriting" } });
    assert.deepEqual(tools.map((t) => t.name), ["record_review", "record_a2", "record_a3", "record_a6"]);
    for (const t of tools) {
      const gate = parametersOf(t).properties.attestations?.items?.properties?.gate;
      assert.ok(gate?.enum?.includes("humanize_dialogue_passed"), `${t.name}: ${JSON.stringify(parametersOf(t).properties.attestations)}`);
    }
  });

  test("an agent that reviews and hands nothing on gets the review tool only", () => {
    assert.deepEqual(contractTools(contract, schemas, "internal-review-lead").map((t) => t.name), ["record_review"]);
  });
});

describe("governed handoffs on the video pack", () => {
  test("a review with attestations, then three artifacts before one handoff: each submitted, the agent keeps its turns between", async () => {
    const wf = workflow();
    const standing = await upTo(wf, S01, ["v01-01", "v01-02", "v01-03", "v01-04"]);
    const scripts = new Scripts()
      .add(
        "screenwriter",
        [call("record_review", reviewArgs(step(S01, "v01-05")), "m-1"), call("transfer_to_director", {}, "m-2")],
        [
          call("record_a2", recordArgs(step(S01, "v01-06")), "m-3"),
          call("record_a3", recordArgs(step(S01, "v01-07")), "m-4"),
          call("record_a6", recordArgs(step(S01, "v01-08")), "m-5"),
          call("transfer_to_director", {}, "m-6"),
        ],
      )
      .add("director", [say("Checking the script.")]);
    const run = governedRun(wf, "screenwriter", standing);
    const result = await runner(scripts).run(run.agents.screenwriter!, "OPENING-TURN: check the brief, then write.", { context: run });

    assert.deepEqual(run.decisions.map((d) => `${d.kind}:${d.outcome}:${d.next?.map((x) => x.agent)}`), [
      "review:allow:screenwriter",
      "handoff:allow:screenwriter",
      "handoff:allow:screenwriter",
      "handoff:allow:director",
    ]);
    assert.equal(result.lastAgent?.name, "director");
    const log = await wf.reader.log("baimengke", wf.id);
    const sent = log.entries.slice(4).map((e) => e.request as { attestations?: { gate: string }[]; output?: { type: string } });
    assert.deepEqual(sent.map((r) => r.output?.type ?? "review"), ["review", "A2", "A3", "A6"]);
    assert.deepEqual(sent[0]!.attestations?.map((a) => a.gate), ["creative_brief_clear"]);
    assert.deepEqual(sent[3]!.attestations?.map((a) => a.gate), ["skill_run"]);

    // Routed back to itself, the screenwriter went on with its own turns and the decision.
    const second = text(scripts.inputs("screenwriter")[1]);
    assert.match(second, /OPENING-TURN/);
    assert.match(second, /scriptwriting/);
    // The director starts from its context package, not from the screenwriter's turns.
    const director = text(scripts.inputs("director")[0]);
    assert.doesNotMatch(director, /OPENING-TURN|record_a6/);
  });

  test("recordings the workflow cannot take in this step are refused by name, never dropped", async () => {
    const wf = workflow();
    const started = await upTo(wf, S01, ["v01-01"]);
    const run = governedRun(wf, "client-intake", started);
    // By hand, a tool the contract does not give client-intake: its A1 cannot follow.
    run.agents["client-intake"]!.tools.push(artifactTool("A1", { taskType: "intake" }));
    const scripts = new Scripts().add("client-intake", [
      call("record_requirements", recordArgs(step(S01, "v01-02")), "u-1"),
      call("record_a1", recordArgs(step(S01, "v01-03")), "u-2"),
      call("transfer_to_creative_director", {}, "u-3"),
    ]);
    await assert.rejects(runner(scripts).run(run.agents["client-intake"]!, "Write the inquiry down.", { context: run }), (err: unknown) => {
      assert.ok(err instanceof UnsubmittedArtifacts, String(err));
      assert.deepEqual(err.unsent, ["A1"]);
      assert.match(err.message, /A1/);
      assert.match(err.message, /creative-director/);
      return true;
    });
    const log = await wf.reader.log("baimengke", wf.id);
    assert.deepEqual(log.entries.map((e) => (e.request as { output?: { type: string } }).output?.type ?? e.decision.kind), ["start", "REQUIREMENTS"]);
  });

  test("a block goes back to the model with its reasons, and the revised handoff passes", async () => {
    const wf = workflow();
    const returned = await upTo(wf, S03, ["v03-01", "v03-02", "v03-03", "v03-04", "v03-05", "v03-06", "v03-07", "v03-08", "v03-09"]);
    assert.equal(returned.outcome, "revise");
    const scripts = new Scripts()
      .add(
        "screenwriter",
        [call("record_a6", recordArgs(step(S03, "v03-10")), "r-1"), call("transfer_to_director", {}, "r-2")],
        [call("record_a6", recordArgs(step(S03, "v03-11")), "r-3"), call("transfer_to_director", {}, "r-4")],
      )
      .add("director", [say("Checking A6 v2.")]);
    const run = governedRun(wf, "screenwriter", returned, { onBlock: "return" });
    const result = await runner(scripts).run(run.agents.screenwriter!, "Revise A6.", { context: run });
    assert.deepEqual(run.decisions.map((d) => d.outcome), ["block", "allow"]);
    assert.equal(result.lastAgent?.name, "director");
    const told = scripts.inputs("screenwriter")[1]!;
    assert.match(text(told), /INPUT_MISSING/);
    assert.match(text(told), /refused/i);
    assert.match(text(told), /Attempts left: 2/, "three attempts by default, one spent");
    assert.match(text(told), /Revise A6/, "the agent keeps its turns");
  });

  test("blocks returned to the model are bounded: the last one reaches the caller", async () => {
    const wf = workflow();
    const returned = await upTo(wf, S03, ["v03-01", "v03-02", "v03-03", "v03-04", "v03-05", "v03-06", "v03-07", "v03-08", "v03-09"]);
    const bad = () => [call("record_a6", recordArgs(step(S03, "v03-10")), `x-${Math.random()}`), call("transfer_to_director", {}, `y-${Math.random()}`)];
    const scripts = new Scripts().add("screenwriter", bad(), bad(), bad());
    const run = governedRun(wf, "screenwriter", returned, { onBlock: "return", maxAttempts: 2 });
    await assert.rejects(runner(scripts).run(run.agents.screenwriter!, "Revise A6.", { context: run }), (err: unknown) => {
      assert.ok(err instanceof HandoffBlocked, String(err));
      assert.ok(err.codes.includes("INPUT_MISSING"));
      return true;
    });
    assert.deepEqual(run.decisions.map((d) => d.outcome), ["block", "block"]);
  });

  test("a re-run after a crash, with new tool call ids, finds what was recorded: nothing twice, nothing refused", async () => {
    const wf = workflow();
    const started = await upTo(wf, S01, ["v01-01"]);
    const play = (ids: string, creative: ReturnType<typeof call>[][]) => {
      const scripts = new Scripts().add("client-intake", [call("record_requirements", recordArgs(step(S01, "v01-02")), `${ids}-1`), call("transfer_to_creative_director", {}, `${ids}-2`)]);
      if (creative.length > 0) scripts.add("creative-director", ...creative);
      scripts.add("screenwriter", [say("Checking the brief.")]);
      const run = governedRun(wf, "client-intake", started);
      return { run, result: runner(scripts).run(run.agents["client-intake"]!, "Write the inquiry down.", { context: run }) };
    };
    // The first run dies when the creative director's model fails: its turn never comes.
    const first = play("first", []);
    await assert.rejects(first.result);
    assert.deepEqual(first.run.decisions.map((d) => d.outcome), ["allow"]);

    const again = play("second", [
      [call("record_a1", recordArgs(step(S01, "v01-03")), "second-3"), call("record_skill_routing", recordArgs(step(S01, "v01-04")), "second-4"), call("transfer_to_screenwriter", {}, "second-5")],
    ]);
    const result = await again.result;
    assert.equal(result.lastAgent?.name, "screenwriter");
    assert.equal(again.run.decisions[0]?.decision_id, first.run.decisions[0]?.decision_id);
    assert.deepEqual(again.run.decisions.map((d) => d.outcome), ["allow", "allow", "allow"]);
    const log = await wf.reader.log("baimengke", wf.id);
    assert.deepEqual(log.entries.map((e) => (e.request as { output?: { type: string } }).output?.type ?? e.decision.kind), ["start", "REQUIREMENTS", "A1", "SKILL_ROUTING"]);
  });

  test("runGoverned sizes the turns for a governed run; running out says so, with the workflow's state", async () => {
    const wf = workflow();
    const started = await upTo(wf, S01, ["v01-01"]);
    const scripts = () =>
      new Scripts()
        .add("client-intake", [call("record_requirements", recordArgs(step(S01, "v01-02")), "t-1")], [call("transfer_to_creative_director", {}, "t-2")])
        .add("creative-director", [call("record_a1", recordArgs(step(S01, "v01-03")), "t-3")], [call("transfer_to_screenwriter", {}, "t-4")], [call("record_skill_routing", recordArgs(step(S01, "v01-04")), "t-5")], [call("transfer_to_screenwriter", {}, "t-6")])
        .add("screenwriter", [say("Checking the brief.")]);
    const short = governedRun(wf, "client-intake", started);
    await assert.rejects(runGoverned(runner(scripts()), short, "Write the inquiry down.", { maxTurns: 3 }), (err: unknown) => {
      assert.ok(err instanceof GovernedTurnsExhausted, String(err));
      assert.equal(err.maxTurns, 3);
      assert.match(err.message, /3 turns/);
      assert.match(err.message, /CREATIVE_DIRECTION/);
      assert.match(err.message, /maxTurns/);
      return true;
    });
    const run = governedRun(wf, "client-intake", started);
    assert.ok(run.maxTurns > 10, `${run.maxTurns}`);
    const result = await runGoverned(runner(scripts()), run, "Write the inquiry down.");
    assert.equal(result.lastAgent?.name, "screenwriter");
  });

  test("a streamed run emits handoff_occurred for every governed handoff", async () => {
    const wf = workflow();
    const started = await upTo(wf, S01, ["v01-01", "v01-02"]);
    const scripts = new Scripts()
      .add("creative-director", [call("record_a1", recordArgs(step(S01, "v01-03")), "s-1"), call("transfer_to_screenwriter", {}, "s-2")], [call("record_skill_routing", recordArgs(step(S01, "v01-04")), "s-3"), call("transfer_to_screenwriter", {}, "s-4")])
      .add("screenwriter", [say("Checking the brief.")]);
    const run = governedRun(wf, "creative-director", started);
    const streamed = await runner(scripts).run(run.agents["creative-director"]!, "Write the brief.", { context: run, stream: true });
    const occurred: string[] = [];
    for await (const e of streamed) {
      if (e.type === "run_item_stream_event" && e.name === "handoff_occurred") {
        const item = e.item as { sourceAgent: { name: string }; targetAgent: { name: string } };
        occurred.push(`${item.sourceAgent.name}>${item.targetAgent.name}`);
      }
    }
    await streamed.completed;
    assert.deepEqual(occurred, ["creative-director>creative-director", "creative-director>screenwriter"]);
    assert.equal(streamed.lastAgent?.name, "screenwriter");
    const input = scripts.inputs("screenwriter")[0] as AgentInputItem[];
    assert.doesNotMatch(text(input), /record_a1|Write the brief/);
  });
});

describe("the video example", () => {
  test("plays the chain with attestations, a returned script and a refused repair, the client's confirmation, and a re-run with new call ids", async () => {
    const s = await runVideo(served, { print: () => {} });
    // The run that died recorded up to the storyboard; the one played again found those
    // decisions (the same ids) and went on to the client's confirmation.
    assert.equal(s.crashed.at(-1)?.status_after, "STORYBOARD_INTAKE");
    assert.deepEqual(
      s.decisions.slice(0, s.crashed.length).map((d) => d.decision_id),
      s.crashed.map((d) => d.decision_id),
    );
    assert.deepEqual(
      s.log.map((e) => `${e.what}:${e.outcome}`),
      [
        "start:allow",
        "REQUIREMENTS:allow",
        "A1:allow",
        "SKILL_ROUTING:allow",
        "ACCEPT:allow",
        "A2:allow",
        "A3:allow",
        "A6:allow",
        "REVISE:revise",
        "A6:block",
        "A6:allow",
        "ACCEPT:allow",
        "A4:allow",
        "A5:allow",
        "ACCEPT:allow",
        "PROMPT:allow",
        "ACCEPT:allow",
        "EDIT_PLAN:allow",
        "ACCEPT:allow",
        "CLIENT_CONFIRMATION:await_human",
        "approval:allow",
      ],
    );
    assert.equal(new Set(s.log.map((e) => e.request_id)).size, s.log.length, "no request recorded twice");
    assert.equal(s.log.at(-1)?.status_after, "COMPLETED");
    assert.equal(JSON.parse(s.finalOutput).status_after, "COMPLETED");
    // The refused repair reached the model with its reasons; its fix passed.
    assert.match(s.refusal, /INPUT_MISSING/);
    assert.match(s.refusal, /untrusted_data/);
    assert.equal(s.verifyOk, true);
  });
});
