// handoffctl mcp with the official MCP TypeScript SDK's client, against a real serve:
// over stdio and over streamable HTTP, the tools, resources and prompts are listed, the
// video pack's happy path is played through tool calls, and a refusal is a tool result.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { handoffctl, startServe, type Served } from "./serve.js";
import {
  actorName,
  connectHttp,
  principalsOf,
  render,
  scenarioSteps,
  startMcpHttp,
  textOf,
  type McpHttp,
  type Played,
  type ToolResult,
  type Verdict,
} from "./mcp-workflow.js";

const video = scenarioSteps("video", "01-happy-path.scenario");
const orchestrator = { name: "system/orchestrator", tenant_id: "acme", type: "system" as const, id: "orchestrator" };

describe("handoffctl mcp", () => {
  let served: Served;
  let mcp: McpHttp;
  const clients: Client[] = [];

  before(async () => {
    served = await startServe([...principalsOf(video), orchestrator]);
    mcp = await startMcpHttp(served.url);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await mcp?.stop();
    await served?.stop();
  });

  test("over stdio: tools, resources, prompts, a start and a refusal", async () => {
    const client = new Client({ name: "handoff-mcp-test", version: "1.0.0" });
    clients.push(client);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    env.HANDOFF_TOKEN = served.tokens["system/orchestrator"]!;
    await client.connect(new StdioClientTransport({ command: handoffctl(), args: ["--server", served.url, "mcp"], env }));

    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["explain", "next", "state", "submit", "template", "validate"]);
    const submit = tools.find((t) => t.name === "submit")!;
    assert.deepEqual(submit.inputSchema.required, ["request"]);
    const { resources } = await client.listResources();
    for (const pack of ["assessment", "campaign", "support", "video"]) {
      assert.ok(resources.some((r) => r.uri === `handoff://packs/${pack}/contract`), pack);
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), ["handoff://packs/{pack}/contract", "handoff://packs/{pack}/schemas/{kind}"]);
    const schema = await client.readResource({ uri: "handoff://packs/campaign/schemas/start" });
    assert.match((schema.contents[0] as { text: string }).text, /"\$schema"/);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ["assessment-rules", "campaign-rules", "support-rules", "video-rules"]);
    const rules = await client.getPrompt({ name: "video-rules" });
    assert.match((rules.messages[0]!.content as { text: string }).text, /creative-director/);

    const start = {
      request_id: "req-stdio-start", kind: "start", tenant_id: "acme", organization_id: "acme-marketing", trace_id: "trace-stdio",
      actor: { type: "system", id: "orchestrator" }, pack: "campaign", subject_id: "s1", workflow_id: "wf-stdio",
      brief: { client: "Brightbrew", business_objective: "Grow trial sign-ups", product: "Brightbrew Cold Brew" },
    };
    const started = (await client.callTool({ name: "submit", arguments: { request: start } })) as ToolResult;
    assert.equal(started.isError, undefined, textOf(started));
    assert.equal((started.structuredContent as Verdict).outcome, "allow");
    const next = (await client.callTool({ name: "next", arguments: { workflow_id: "wf-stdio" } })) as ToolResult;
    assert.equal((next.structuredContent as { status: string }).status, "RESEARCH");

    // A request in another principal's name: refused, as a result the model reads.
    const refused = (await client.callTool({ name: "submit", arguments: { request: { ...start, request_id: "req-stdio-2", actor: { type: "agent", id: "research_agent" } } } })) as ToolResult;
    assert.notEqual(refused.isError, true);
    const v = refused.structuredContent as Verdict;
    assert.equal(v.outcome, "block");
    assert.ok(v.refused);
    assert.ok(v.reasons.some((r) => r.code === "IDENTITY_MISMATCH" && r.fix && r.message));
    assert.match(textOf(refused), /REFUSED/);
    assert.match(textOf(refused), /<untrusted-data>/);

    const missing = (await client.callTool({ name: "state", arguments: { workflow_id: "wf-none", tenant_id: "acme" } })) as ToolResult;
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /NOT_FOUND/);
  });

  test("over streamable HTTP: a session per principal plays a video workflow to its end", async () => {
    await assert.rejects(connectHttp(mcp.url, undefined), /no bearer token|401/i);
    await assert.rejects(connectHttp(mcp.url, "not-a-token"), /invalid token|401/i);

    const sessions = new Map<string, Client>();
    const session = async (name: string): Promise<Client> => {
      let c = sessions.get(name);
      if (!c) {
        c = await connectHttp(mcp.url, served.tokens[name]!);
        sessions.set(name, c);
        clients.push(c);
      }
      return c;
    };
    const played: Played = { version: 0 };
    let last: Verdict | undefined;
    for (const step of video) {
      const c = await session(actorName(step.request));
      const call = async (name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as ToolResult;
      const request = await render(step, played, call);
      const res = await call("submit", { request });
      assert.notEqual(res.isError, true, `${step.name}: ${textOf(res)}`);
      last = res.structuredContent as Verdict;
      assert.equal(last.outcome, step.expect.outcome, `${step.name}: ${textOf(res)}`);
      assert.deepEqual(last.reasons.map((r) => r.code).sort(), [...step.expect.reasons].sort(), step.name);
      if (step.expect.status_after) assert.equal(last.status_after, step.expect.status_after, step.name);
      played.workflowId ??= last.workflow_id;
      played.version = last.state_version;
    }
    // The last step cancels a completed workflow: the engine refuses it, as a result.
    assert.equal(last?.outcome, "block");
    assert.ok(last?.refused);
    const c = await session("system/studio-orchestrator");
    const st = (await c.callTool({ name: "state", arguments: { workflow_id: played.workflowId } })) as ToolResult;
    assert.equal((st.structuredContent as { status: string; terminal: boolean }).status, "COMPLETED");
    const explained = (await c.callTool({ name: "explain", arguments: { decision_id: last!.decision_id } })) as ToolResult;
    assert.match(textOf(explained), /WORKFLOW_TERMINAL/);
  });
});
