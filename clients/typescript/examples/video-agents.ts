// The video pack's chain played by OpenAI Agents SDK agents, every handoff decided by a
// real `handoffctl serve`. The model is scripted (no network, no API key); what it writes
// is typed by the pack's contract (video-content.ts). It shows agents that check what they
// were handed and then produce (their reviews carry attestations), several artifacts
// before one handoff, a script returned by the director and a refused repair the model
// fixes, the client's confirmation given through the service with her own token, and a
// run that dies half-way played again with new tool call ids: nothing recorded twice.
//
//   npx tsc -p . && node dist/examples/video-agents.js
import { Runner, setTracingDisabled, type AgentOutputItem } from "@openai/agents";
import { pathToFileURL } from "node:url";
import { HandoffClient, Workflow, untrusted, type Decision } from "../src/index.js";
import { GovernedRun, runGoverned, type GovernedRunOptions } from "../src/agents/index.js";
import * as content from "./video-content.js";
import { Scripts, call } from "./scripted.js";
import { videoParticipants, videoPrincipals, videoTeam } from "./video-team.js";
import type { Server } from "../test/serve.js";

setTracingDisabled(true); // nothing leaves the machine

export interface VideoSummary {
  workflowId: string;
  lines: string[];
  /** The decisions of the run that died, and of the run played again, in order. */
  crashed: Decision[];
  decisions: Decision[];
  /** The run's final output: the last decision, as the end of the run states it. */
  finalOutput: string;
  /** The log: what each entry submitted (artifact type, review verdict, kind) and its outcome. */
  log: { what: string; outcome: string; status_after: string | undefined; request_id: string }[];
  /** What the screenwriter was told when its repair was refused. */
  refusal: string;
  verifyOk: boolean;
  scripts: Scripts;
}

const tenant = "baimengke";

export async function runVideo(server: Server, options: { workflowId?: string; print?: (line: string) => void } = {}): Promise<VideoSummary> {
  const workflowId = options.workflowId ?? `wf-hillside-${Date.now()}`;
  const lines: string[] = [];
  const print = (line: string) => {
    lines.push(line);
    (options.print ?? console.log)(line);
  };
  const workflow = new Workflow({ tenant, organization: "baimengke-studio", workflowId, pack: "video", participants: videoParticipants(server) });
  const started = await workflow.start("studio-orchestrator", { subject_id: "hillside-cold-brew-15s", brief: content.inquiry }, `${workflowId}:start`);
  print(`${"studio-orchestrator".padEnd(22)} start    ${started.outcome} -> ${started.status_after}`);

  // The client confirms through her own client and token, as a person would.
  const confirmed = confirmAsClient(server, workflowId, print);

  const client = new HandoffClient({ baseUrl: server.url, token: server.tokens["studio-orchestrator"] });
  const [contract, schemas] = await Promise.all([client.contract("video"), client.schemas("video")]);
  const runOptions = (by: string): GovernedRunOptions => ({
    workflow,
    agents: videoTeam(contract, schemas),
    start: "client-intake",
    // Request ids derive from this version: a run played again from the same start finds
    // what the first one recorded.
    stateVersion: started.state_version,
    limits: schemas.limits,
    onBlock: "return",
    pollMs: 100,
    onDecision: (d, who) => print(line(d, who === "human" ? "(run resumes)" : who, by)),
  });

  // The first run dies when the VFX supervisor's model fails (it has no script).
  const first = new GovernedRun(runOptions("run 1"));
  const dying = new Runner({ modelProvider: videoScripts("first", { vfx: false }), tracingDisabled: true });
  try {
    await runGoverned(dying, first, untrusted(started, "client-intake"));
    throw new Error("the first run was meant to die half-way");
  } catch (err) {
    print(`run 1 died: ${(err as Error).message.split("\n")[0]}`);
  }

  // Played again in a fresh run with a fresh model: new tool call ids, same request ids.
  const scripts = videoScripts("second", { vfx: true });
  const run = new GovernedRun(runOptions("run 2"));
  const result = await runGoverned(new Runner({ modelProvider: scripts, tracingDisabled: true }), run, untrusted(started, "client-intake"));
  await confirmed;

  const verify = await workflow.reader.verify(tenant);
  print(`verify ${tenant}: ok=${verify.ok}`);
  const log = await workflow.reader.log(tenant, workflowId);
  const refusal = JSON.stringify(scripts.inputs("screenwriter")[3] ?? []);
  return {
    workflowId,
    lines,
    crashed: first.decisions,
    decisions: run.decisions,
    finalOutput: String(result.finalOutput),
    log: log.entries.map((e) => {
      const r = e.request as { output?: { type: string }; verdict?: string; kind: string };
      return { what: r.output?.type ?? r.verdict ?? r.kind, outcome: e.decision.outcome, status_after: e.decision.status_after, request_id: e.decision.request_id };
    }),
    refusal,
    verifyOk: verify.ok,
    scripts,
  };
}

/** The scripted model: each agent's turns, tool call ids prefixed by the run's name. */
function videoScripts(run: string, { vfx }: { vfx: boolean }): Scripts {
  let n = 0;
  const c = (name: string, args: Record<string, unknown>) => call(name, args, `${run}-${++n}`);
  const record = (type: string, value: unknown, inputs: string[], extra: Record<string, unknown> = {}) =>
    c(`record_${type.toLowerCase()}`, { content: value, inputs, summary: `${type} v1`, confidence: 0.85, ...extra });
  const review = (verdict: string, artifacts: string[], attestations: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
    c("record_review", { verdict, artifacts, defects: [], gates: [], attestations, ...extra });
  const to = (agent: string) => c(`transfer_to_${agent.replace(/-/g, "_")}`, {});
  const attest = (gate: string, by: string, passed = true, reason?: string) => ({ gate, by, passed, ...(reason ? { reason } : {}) });
  const skill = (by: string, name: string) => ({ gate: "skill_run", by, skill: name, passed: true });
  const repair = { supersedes: 1, justification: "Redone with humanize-dialogue as the director asked", attestations: [skill("screenwriter", "humanize-dialogue")] };

  const scripts = new Scripts()
    .add("client-intake", [record("REQUIREMENTS", content.requirements, []), to("creative-director")])
    .add("creative-director", [record("A1", content.brief, ["REQUIREMENTS"]), record("SKILL_ROUTING", content.routing, ["REQUIREMENTS", "A1"]), to("screenwriter")])
    .add(
      "screenwriter",
      // Its check of the brief, then three artifacts before one handoff.
      [review("ACCEPT", ["A1", "SKILL_ROUTING"], [attest("creative_brief_clear", "screenwriter")]), to("director")],
      [
        record("A2", content.characters, ["A1", "SKILL_ROUTING"]),
        record("A3", content.outline, ["A1", "A2"]),
        record("A6", content.script(1), ["A1", "A2", "A3"], { attestations: [skill("screenwriter", "humanize-dialogue")] }),
        to("director"),
      ],
      // The repair forgets to cite the checklist record that returned it: refused ...
      [record("A6", content.script(2), ["A1", "A2", "A3"], repair), to("director")],
      // ... and, told why, cites it.
      [record("A6", content.script(2), ["A1", "A2", "A3", "SCRIPT_CHECK"], repair), to("director")],
    )
    .add(
      "director",
      [
        review("REVISE", ["A2", "A3", "A6"], [attest("humanize_dialogue_passed", "director", false, "The first line still reads like a machine: run humanize-dialogue again")], {
          defects: [{ id: "D-1", severity: "S2", artifact: "A6", description: "Lin's first line is stiff; make it sound spoken" }],
        }),
        to("vfx-supervisor"),
      ],
      [review("ACCEPT", ["A2", "A3", "A6"], [attest("humanize_dialogue_passed", "director")]), to("vfx-supervisor")],
      [record("A4", content.breakdown, ["A1", "A6"]), record("A5", content.storyboard, ["A1", "A4", "A6"]), to("vfx-supervisor")],
    )
    .add("editor", [review("ACCEPT", ["PROMPT"], [attest("platform_language_correct", "editor")]), to("internal-review-lead")], [record("EDIT_PLAN", content.editPlan, ["A5", "PROMPT"]), to("internal-review-lead")])
    .add("internal-review-lead", [c("record_review", { verdict: "ACCEPT", artifacts: ["EDIT_PLAN", "A5", "PROMPT"], defects: [], gates: [], summary: "Internal review" }), to("client-review-lead")])
    .add("client-review-lead", [record("CLIENT_CONFIRMATION", content.confirmation, ["REVIEW_OPINION", "EDIT_PLAN"]), to("client")]);
  if (vfx) {
    const turns: AgentOutputItem[][] = [
      [review("ACCEPT", ["A4", "A5"], []), to("editor")],
      [record("PROMPT", content.prompts, ["A4", "A5", "SKILL_ROUTING"], { attestations: [skill("vfx-supervisor", "prompt-schema")] }), to("editor")],
    ];
    scripts.add("vfx-supervisor", ...turns);
  }
  return scripts;
}

/** The client's side: she waits until the workflow awaits her, then confirms with her own token. */
async function confirmAsClient(server: Server, workflowId: string, print: (l: string) => void): Promise<Decision> {
  const workflow = new Workflow({ tenant, organization: "baimengke-studio", workflowId, pack: "video", participants: videoParticipants(server, ["chen.mei"]) });
  for (const give = Date.now() + 120_000; ; ) {
    if (Date.now() > give) throw new Error(`${workflowId} never awaited the client`);
    const list = await workflow.reader.workflows(tenant, { awaiting: "human" });
    if (list.workflows.some((w) => w.workflow_id === workflowId && w.status === "AWAITING_CLIENT")) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const d = await workflow.submit("chen.mei", "approval", { decision: "APPROVE", artifacts: ["${ref:CLIENT_CONFIRMATION@latest}"], revise: [], comment: "Confirmed: generate the film" }, `${workflowId}:client-confirms`);
  print(`${"chen.mei".padEnd(22)} approval APPROVE, her own token: ${d.outcome} -> ${d.status_after}`);
  return d;
}

function line(d: Decision, who: string, run: string): string {
  const codes = d.reasons.map((r) => r.code).join(", ");
  const next = (d.next ?? []).map((n) => n.agent).join(", ") || "none";
  return `${who.padEnd(22)} ${d.kind.padEnd(8)} ${d.outcome}${codes ? ` (${codes})` : ""} -> ${d.status_after}, next ${next} [${run}]`;
}

// Run directly: a server of its own on a fresh store, stopped at the end.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { startServe } = await import("../test/serve.js");
  const served = await startServe(videoPrincipals);
  try {
    const summary = await runVideo(served);
    console.log(`done: ${summary.log.length} log entries, verify ok=${summary.verifyOk}`);
  } finally {
    await served.stop();
  }
}
