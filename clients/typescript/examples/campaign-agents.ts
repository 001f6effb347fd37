// The campaign pack's workflow played by OpenAI Agents SDK agents, every handoff decided by
// a real `handoffctl serve`. The agents' model is scripted (no network, no API key): its
// tool calls carry the requests of the pack's scenarios. It shows an allowed path, a
// blocked handoff, the copy and visual branches running at the same time, a targeted
// revision and a person's approvals given through the service.
//
//   npm run example:campaign
import { Runner, setTracingDisabled } from "@openai/agents";
import { pathToFileURL } from "node:url";
import { HandoffClient, Workflow, untrusted, type Decision } from "../src/index.js";
import { GovernedRun, HandoffBlocked, runGoverned, type PackSchemas } from "../src/agents/index.js";
import { agentIds, campaignPrincipals, participants } from "./principals.js";
import { artifactArgs, reviewArgs, step } from "./campaign-steps.js";
import type { ScenarioStep as Step } from "./scenarios.js";
import { Scripts, call } from "./scripted.js";
import { campaignTeam, type Team } from "./team.js";
import type { Server } from "../test/serve.js";

setTracingDisabled(true); // nothing leaves the machine

export interface CampaignSummary {
  workflowId: string;
  /** One line per step, as printed. */
  lines: string[];
  /** Every decision the governed runs submitted or waited for, in order. */
  decisions: Decision[];
  /** The approval's two branches (copy ∥ visual), each its own run, run at the same time. */
  parallel: { branches: string[]; named: string[]; overlapped: boolean };
  /** The run's final output: the last decision, as the end of the run states it. */
  finalOutput: string;
  /** The early copy on an unapproved strategy, in a workflow of its own. */
  blocked: { workflowId: string; codes: string[]; reachedCaller: boolean };
  /** QA's REVISE: who was sent back, and what the repaired version got. */
  revision: { producers: string[]; repaired: string; copywriterRuns: number };
  /** Maria's decisions, each sent with her own token while the run waited. */
  approvals: { stage: string; outcome: string }[];
  /** The main workflow's log: kind and outcome of every entry, oldest first. */
  log: { kind: string; outcome: string; status_after: string | undefined }[];
  verifyOk: boolean;
  /** The inputs the scripted model got, per agent. */
  scripts: Scripts;
}

const S11 = "11-s1-targeted-repair";
const S07 = "07-delivery-without-approval";
const everyone = ["orchestrator", ...agentIds];

export async function runCampaign(server: Server, options: { workflowId?: string; print?: (line: string) => void } = {}): Promise<CampaignSummary> {
  const workflowId = options.workflowId ?? `wf-brightbrew-agents-${Date.now()}`;
  const lines: string[] = [];
  const print = (line: string) => {
    lines.push(line);
    (options.print ?? console.log)(line);
  };
  const blocked = await blockedEarlyCopy(server, `${workflowId}-early-copy`, print);

  const workflow = campaignWorkflow(server, workflowId, everyone);
  const started = await workflow.start("orchestrator", step(S11, "c11-01").fields, `${workflowId}:start`);
  print(`${"orchestrator".padEnd(20)} start    ${started.outcome} -> ${started.status_after}, next ${names(started)}`);

  // Maria works through her own client and token, as a person would, while the run waits.
  const approvals = approveAsMaria(server, workflowId, [step(S11, "c11-05"), step(S11, "c11-12")], print);

  const scripts = campaignScripts();
  const team = await teamOf(server);
  const runner = new Runner({ modelProvider: scripts, tracingDisabled: true });
  const decisions: Decision[] = [];
  const { limits } = await schemasOf(server);
  // A run holds the agents it plays: a decision naming none of them ends it.
  const governedRun = (start: keyof Team, from: Decision, holds: (keyof Team)[]) =>
    new GovernedRun({
      workflow,
      agents: Object.fromEntries(holds.map((id) => [id, team[id]])),
      start,
      stateVersion: from.state_version,
      limits,
      pollMs: 100,
      onDecision: (d, by) => {
        decisions.push(d);
        print(line(d, by));
      },
    });

  // Research and strategy, up to Maria's approval, which sends copy and visual off together.
  const planning = governedRun("research_agent", started, ["research_agent", "qa_agent", "strategy_agent"]);
  await runGoverned(runner, planning, untrusted(started, "research_agent"));
  const approved = planning.decisions.at(-1)!;

  // The two branches the approval names, each a run of its own, at the same time.
  const branch = async (agent: "copywriter" | "visual_prompt_agent") => {
    const startedAt = Date.now();
    const run = governedRun(agent, approved, [agent]);
    await runGoverned(runner, run, untrusted(approved, agent));
    return { agent, startedAt, endedAt: Date.now(), decision: run.decisions.at(-1)! };
  };
  const branches = await Promise.all([branch("copywriter"), branch("visual_prompt_agent")]);
  const [a, b] = branches;
  const joined = branches.map((x) => x.decision).reduce((x, y) => ((x.state_version ?? 0) > (y.state_version ?? 0) ? x : y));

  // QA takes both, returns the visual alone, and delivery follows the second approval.
  const run = governedRun("qa_agent", joined, ["qa_agent", "copywriter", "visual_prompt_agent", "delivery_agent"]);
  const result = await runGoverned(runner, run, untrusted(joined, "qa_agent"));
  const given = await approvals;

  // The client acknowledged the package: the host reports the effect's outcome.
  const done = await workflow.submit("orchestrator", "outcome", step(S07, "c07-12").fields, `${workflowId}:outcome`);
  print(`${"orchestrator".padEnd(20)} outcome  ${done.outcome} -> ${done.status_after}`);

  const verify = await workflow.reader.verify("acme");
  print(`verify acme: ok=${verify.ok}`);
  const log = await workflow.reader.log("acme", workflowId);
  const revise = run.decisions.find((d) => d.outcome === "revise");
  const repaired = run.decisions[run.decisions.indexOf(revise!) + 1];
  return {
    workflowId,
    lines,
    decisions,
    parallel: {
      branches: branches.map((x) => x.agent),
      named: (approved.next ?? []).map((n) => n.agent ?? ""),
      overlapped: a!.startedAt <= b!.endedAt && b!.startedAt <= a!.endedAt,
    },
    finalOutput: String(result.finalOutput),
    blocked,
    revision: {
      producers: (revise?.revise ?? []).map((r) => r.producer ?? ""),
      repaired: repaired?.outcome ?? "none",
      copywriterRuns: scripts.calls("copywriter"),
    },
    approvals: given,
    log: log.entries.map((e) => ({ kind: e.decision.kind, outcome: e.decision.outcome, status_after: e.decision.status_after })),
    verifyOk: verify.ok,
    scripts,
  };
}

/** The scripted turns of the main run: scenario 11's requests as tool calls. */
function campaignScripts(): Scripts {
  const produce = (tool: string, s: Step) => call(tool, artifactArgs(s), `${s.id}`);
  const review = (s: Step) => call("record_review", reviewArgs(s), `${s.id}`);
  const to = (agent: string, id: string) => call(`transfer_to_${agent}`, {}, `${id}-handoff`);
  return new Scripts()
    .add("research_agent", [produce("record_research_brief", step(S11, "c11-02")), to("strategy_agent", "c11-02")])
    .add(
      "qa_agent",
      [review(step(S11, "c11-03")), to("strategy_agent", "c11-03")],
      [review(step(S11, "c11-08")), to("visual_prompt_agent", "c11-08")],
      [review(step(S11, "c11-11b")), to("delivery_agent", "c11-11b")],
    )
    .add("strategy_agent", [produce("record_strategy_brief", step(S11, "c11-04")), to("campaign_approver", "c11-04")])
    .add("copywriter", [produce("record_copy_package", step(S11, "c11-06")), to("qa_agent", "c11-06")])
    .add(
      "visual_prompt_agent",
      [produce("record_visual_package", step(S11, "c11-07")), to("qa_agent", "c11-07")],
      [produce("record_visual_package", step(S11, "c11-10")), to("qa_agent", "c11-10")],
    )
    .add("delivery_agent", [call("record_client_package", clientPackage(), "delivery"), to("client", "delivery")]);
}

/**
 * Scenario 07's client package, carrying the prompts of the repaired visual v2: delivery
 * adds nothing of its own, it packages the approved versions.
 */
function clientPackage(): Record<string, unknown> {
  const args = artifactArgs(step(S07, "c07-11"));
  const visual = artifactArgs(step(S11, "c11-10")).content as { prompts: unknown[] };
  const content = { ...(args.content as Record<string, unknown>), visual_prompts: visual.prompts };
  return { ...args, content, inputs: ["COPY_PACKAGE", "VISUAL_PACKAGE", "QA_REPORT", "APPROVAL_RECORD"] };
}

/**
 * A copywriter that writes before the strategy is approved: the service blocks its handoff
 * and the run's caller gets HandoffBlocked with the reasons. The workflow up to the
 * strategy awaiting approval is submitted as scenario 11 records it.
 */
async function blockedEarlyCopy(server: Server, workflowId: string, print: (l: string) => void): Promise<CampaignSummary["blocked"]> {
  const workflow = campaignWorkflow(server, workflowId, everyone);
  for (const id of ["c11-01", "c11-02", "c11-03", "c11-04"]) {
    const s = step(S11, id);
    await workflow.submit(s.actor, s.kind, s.fields, `${workflowId}:${id}`);
  }
  const team = await teamOf(server);
  const scripts = new Scripts().add("copywriter", [
    call("record_copy_package", artifactArgs(step(S11, "c11-06")), "early-copy"),
    call("transfer_to_qa_agent", {}, "early-copy-handoff"),
  ]);
  const run = new GovernedRun({ workflow, agents: team, start: "copywriter" });
  try {
    await new Runner({ modelProvider: scripts, tracingDisabled: true }).run(team.copywriter, "Write the copy from the strategy.", { context: run });
  } catch (err) {
    if (!(err instanceof HandoffBlocked)) throw err;
    print(`${"copywriter".padEnd(20)} handoff  block, early copy: ${err.codes.join(", ")} (${workflowId})`);
    return { workflowId, codes: err.codes, reachedCaller: true };
  }
  return { workflowId, codes: [], reachedCaller: false };
}

/**
 * Maria's side: she waits until the workflow awaits her at each step's stage and sends the
 * step's approval with her own token (the service checks her role, not the run).
 */
async function approveAsMaria(server: Server, workflowId: string, steps: Step[], print: (l: string) => void) {
  const workflow = campaignWorkflow(server, workflowId, ["maria.lopez"]);
  const given: CampaignSummary["approvals"] = [];
  for (const s of steps) {
    const stage = String(s.fields.stage);
    for (;;) {
      const list = await workflow.reader.workflows("acme", { awaiting: "human" });
      if (list.workflows.some((w) => w.workflow_id === workflowId && w.status === stage)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const d = await workflow.submit("maria.lopez", "approval", s.fields, `${workflowId}:${s.id}`);
    print(`${"maria.lopez".padEnd(20)} approval ${s.fields.decision} ${stage}, her own token: ${d.outcome} -> ${d.status_after}`);
    given.push({ stage, outcome: d.outcome });
  }
  return given;
}

async function teamOf(server: Server): Promise<Team> {
  const client = new HandoffClient({ baseUrl: server.url, token: server.tokens.orchestrator });
  return campaignTeam(await client.contract("campaign"), await schemasOf(server));
}

function schemasOf(server: Server): Promise<PackSchemas> {
  return new HandoffClient({ baseUrl: server.url, token: server.tokens.orchestrator }).schemas("campaign");
}

function campaignWorkflow(server: Server, workflowId: string, actors: string[]): Workflow {
  return new Workflow({ tenant: "acme", organization: "acme-marketing", workflowId, pack: "campaign", participants: participants(server, actors) });
}

function names(d: Decision): string {
  return (d.next ?? []).map((n) => n.agent).join(", ") || "none";
}

function line(d: Decision, by: string): string {
  const codes = d.reasons.map((r) => r.code).join(", ");
  // A person's decision was printed as sent; this is the run taking it up.
  const who = by === "human" ? "(run resumes)" : by;
  return `${who.padEnd(20)} ${d.kind.padEnd(8)} ${d.outcome}${codes ? ` (${codes})` : ""} -> ${d.status_after}, next ${names(d)}`;
}

// Run directly: a server of its own on a fresh store, stopped at the end.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { startServe } = await import("../test/serve.js");
  const served = await startServe(campaignPrincipals);
  try {
    const summary = await runCampaign(served);
    console.log(`done: ${summary.log.length} log entries, verify ok=${summary.verifyOk}`);
  } finally {
    await served.stop();
  }
}
