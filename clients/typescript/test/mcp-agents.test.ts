// The OpenAI Agents SDK's own MCP support (MCPServerStreamableHttp) against handoffctl
// mcp: each actor of the video pack's happy path is an Agent whose scripted model calls
// the submit tool of its own MCP server, bound to its principal's token; the workflow
// ends, and the refusal at its last step reaches the model as a tool result.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent, MCPServerStreamableHttp, Runner } from "@openai/agents";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Scripts, call, say } from "../examples/scripted.js";
import { startServe, type Served } from "./serve.js";
import { actorName, connectHttp, principalsOf, render, scenarioSteps, startMcpHttp, textOf, type McpHttp, type Played, type ToolResult } from "./mcp-workflow.js";

const video = scenarioSteps("video", "01-happy-path.scenario");

let served: Served;
let mcp: McpHttp;
const servers: MCPServerStreamableHttp[] = [];
let reader: Client;

before(async () => {
  served = await startServe(principalsOf(video));
  mcp = await startMcpHttp(served.url);
  reader = await connectHttp(mcp.url, served.tokens["system/studio-orchestrator"]!);
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await reader?.close();
  await mcp?.stop();
  await served?.stop();
});

test("agents with scripted models play a video workflow through the MCP tools", async () => {
  const scripts = new Scripts();
  const runner = new Runner({ modelProvider: scripts, tracingDisabled: true });
  const agents = new Map<string, Agent>();
  const agentOf = async (name: string): Promise<Agent> => {
    let agent = agents.get(name);
    if (!agent) {
      const server = new MCPServerStreamableHttp({ url: mcp.url, name: `handoff-${name}`, requestInit: { headers: { Authorization: `Bearer ${served.tokens[name]!}` } } });
      await server.connect();
      servers.push(server);
      agent = new Agent({ name: name.replace(/\W/g, "_"), model: name, instructions: "Act through the Handoff tools.", mcpServers: [server] });
      agents.set(name, agent);
    }
    return agent;
  };
  const readState = async (tool: string, args: Record<string, unknown>) => (await reader.callTool({ name: tool, arguments: args })) as ToolResult;

  const played: Played = { version: 0 };
  let i = 0;
  for (const step of video) {
    const name = actorName(step.request);
    const request = await render(step, played, readState);
    scripts.add(name, [call("submit", { request }, `call-${++i}`)], [say("Submitted.")]);
    const result = await runner.run(await agentOf(name), `Send your request for ${step.name}.`);
    assert.equal(result.finalOutput, "Submitted.");
    // What the model was given back: the tool result of its submit call.
    const inputs = scripts.inputs(name);
    const given = JSON.stringify(inputs[inputs.length - 1]);
    assert.match(given, new RegExp(`Outcome: ${step.expect.outcome}\\.`), step.name);
    for (const code of step.expect.reasons) assert.match(given, new RegExp(code), step.name);
    const st = await readState("state", { workflow_id: played.workflowId ?? step.request.workflow_id });
    assert.notEqual(st.isError, true, textOf(st));
    const state = st.structuredContent as { workflow_id: string; state_version: number; status: string };
    played.workflowId = state.workflow_id;
    played.version = state.state_version;
    if (step.expect.status_after) assert.equal(state.status, step.expect.status_after, step.name);
  }
  const last = scripts.inputs("system/studio-orchestrator");
  assert.match(JSON.stringify(last[last.length - 1]), /REFUSED/, "the refusal reached the model as a result");
});
