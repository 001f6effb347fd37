// A project that installed @handoff/client from its tarball. The same source is compiled as
// an ES module project (esm/) and as a CommonJS one (cjs/): each type-checks it against the
// declarations its module system resolves, then runs it against a real `handoffctl serve`
// ($HANDOFFCTL) with a principals file of a fresh token.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { strict as assert } from "node:assert";
import { HandoffClient, HandoffError, type Decision } from "@handoff/client";
import { governedHandoff } from "@handoff/client/agents";
import { HandoffState } from "@handoff/client/langgraph";
import type { campaign } from "@handoff/client/packs";
import type { RequestOf } from "@handoff/client/packs/campaign";

async function main(): Promise<void> {
  const binary = process.env.HANDOFFCTL;
  if (!binary) throw new Error("HANDOFFCTL names no handoffctl binary");
  const dir = mkdtempSync(join(tmpdir(), "handoff-consumer-"));
  const token = randomBytes(24).toString("hex");
  const principals = join(dir, "principals.json");
  writeFileSync(principals, JSON.stringify({ principals: [{ name: "host", tenant_id: "acme", type: "system", id: "orchestrator", token_sha256: createHash("sha256").update(token).digest("hex") }] }));
  const serve = spawn(binary, ["-o", "json", "--db", join(dir, "db"), "serve", "--addr", "127.0.0.1:0", "--principals", principals], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const baseUrl = await new Promise<string>((ok, fail) => {
      serve.once("exit", (code) => fail(new Error(`handoffctl serve exited ${code}`)));
      createInterface({ input: serve.stdout! }).on("line", (line) => {
        if (!line.startsWith("{")) return;
        const event = JSON.parse(line) as { event?: string; url?: string };
        if (event.event === "serving" && event.url) ok(event.url);
      });
    });

    const host = new HandoffClient({ baseUrl, token });
    const start: RequestOf<"start"> = {
      request_id: "start-consumer",
      kind: "start",
      tenant_id: "acme",
      organization_id: "acme-marketing",
      workflow_id: "wf-consumer",
      trace_id: "trace-consumer",
      actor: { type: "system", id: "orchestrator" },
      pack: "campaign",
      subject_id: "brightbrew-q2-launch",
      brief: { client: "Brightbrew", business_objective: "Grow trial sign-ups by 20% in Q2", product: "Brightbrew Cold Brew" },
    };
    // The declarations are read for real, not as `any`: a kind the pack does not have, or
    // an outcome the service never answers, does not compile.
    // @ts-expect-error: "begin" is no kind of the campaign pack
    const misnamed: RequestOf<"start"> = { ...start, kind: "begin" };
    assert.equal(misnamed.kind, "begin");
    const decision: Decision = await host.submit(start);
    // @ts-expect-error: a decision's outcome is one of the service's
    assert.equal(decision.outcome === "maybe", false);
    assert.equal(decision.outcome, "allow");
    assert.equal(decision.status_after, "RESEARCH");
    assert.deepEqual(decision.next?.map((n) => n.agent), ["research_agent"]);
    assert.equal((await host.state("acme", "wf-consumer")).state_version, 1);
    const refused = await host.state("acme", "wf-missing").catch((err: unknown) => err);
    assert.ok(refused instanceof HandoffError, `a missing workflow rejects with a HandoffError, not ${String(refused)}`);

    // Both adapters load under this module system, with their framework.
    const research: campaign.Content<"RESEARCH_BRIEF"> | undefined = undefined;
    assert.equal(research, undefined);
    assert.equal(governedHandoff("strategy_agent").agentName, "strategy_agent");
    assert.ok("decision" in HandoffState.spec);

    console.log(JSON.stringify({ module: typeof require === "function" ? "commonjs" : "module", outcome: decision.outcome, status_after: decision.status_after }));
  } finally {
    serve.kill("SIGTERM");
    await new Promise((done) => (serve.exitCode === null ? serve.once("exit", done) : done(null)));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
