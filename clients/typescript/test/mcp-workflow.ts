// What the MCP tests share: the handoffctl mcp server over streamable HTTP, MCP clients
// bound to a principal's token, and the video pack's happy path played through the
// submit tool, its ${ref:…} placeholders resolved from the state tool.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { repoDir } from "./paths.js";
import { handoffctl, type PrincipalSpec } from "./serve.js";

export interface ScenarioStep {
  name: string;
  request: Record<string, unknown>;
  expect: { outcome: string; reasons: string[]; status_after?: string };
}

/** The steps of policies_test/handoff/<pack>/scenarios/<file>. */
export function scenarioSteps(pack: string, file: string): ScenarioStep[] {
  const path = join(repoDir, "policies_test/handoff", pack, "scenarios", file);
  return (JSON.parse(readFileSync(path, "utf8")) as { steps: ScenarioStep[] }).steps;
}

/** The principal of a request's actor, by name "type/id". */
export function actorName(request: Record<string, unknown>): string {
  const a = request.actor as { type: string; id: string };
  return `${a.type}/${a.id}`;
}

/** One principal per actor of the steps, with the roles the steps give it. */
export function principalsOf(steps: ScenarioStep[]): PrincipalSpec[] {
  const out = new Map<string, PrincipalSpec>();
  for (const s of steps) {
    const a = s.request.actor as { type: PrincipalSpec["type"]; id: string; roles?: string[] };
    const name = actorName(s.request);
    const p = out.get(name) ?? { name, tenant_id: s.request.tenant_id as string, type: a.type, id: a.id };
    for (const r of a.roles ?? []) p.roles = [...new Set([...(p.roles ?? []), r])];
    out.set(name, p);
  }
  return [...out.values()];
}

export interface McpHttp {
  url: string;
  stop(): Promise<void>;
}

/** Starts `handoffctl mcp --http` for the server at serverUrl. */
export async function startMcpHttp(serverUrl: string): Promise<McpHttp> {
  const child = spawn(handoffctl(), ["-o", "json", "--server", serverUrl, "mcp", "--http", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`handoffctl mcp did not start in 30 s: ${stderr}`)), 30_000);
    child.once("exit", (code) => fail(new Error(`handoffctl mcp exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const event = JSON.parse(line) as { event?: string; url?: string };
      if (event.event === "serving" && event.url) {
        clearTimeout(timer);
        ok(event.url);
      }
    });
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** An MCP client of the official SDK over streamable HTTP, bound to token. */
export async function connectHttp(url: string, token: string | undefined): Promise<Client> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const client = new Client({ name: "handoff-mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** What the validate and submit tools answer as structured content. */
export interface Verdict {
  outcome: string;
  refused: boolean;
  recorded: boolean;
  decision_id?: string;
  workflow_id?: string;
  status_after?: string;
  state_version: number;
  reasons: { code: string; message: string; fix?: string }[];
}

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
}

/** The text of a tool result. */
export function textOf(r: ToolResult): string {
  return r.content.map((c) => c.text ?? "").join("\n");
}

/** What a workflow played so far knows: its id and state version. */
export interface Played {
  workflowId?: string;
  version: number;
}

const placeholder = /^\$\{(.+)\}$/;

/**
 * The step's request with its placeholders replaced as the engine's scenario player does:
 * ${workflow_id}, ${state_version} and ${ref:TYPE@N} from the workflow's state, read
 * with the state tool through call.
 */
export async function render(step: ScenarioStep, played: Played, call: (tool: string, args: Record<string, unknown>) => Promise<ToolResult>): Promise<Record<string, unknown>> {
  const req = structuredClone(step.request);
  if (req.kind !== "start" && req.workflow_id === undefined && played.workflowId) req.workflow_id = played.workflowId;
  let artifacts: Record<string, { latest: number; versions: Record<string, { ref: unknown }> }> | undefined;
  const resolve = async (v: unknown): Promise<unknown> => {
    if (typeof v === "string") {
      const m = placeholder.exec(v);
      if (!m) return v;
      const name = m[1]!;
      if (name === "workflow_id") return played.workflowId;
      if (name === "state_version") return played.version;
      const ref = /^ref:([^@]+)@(\d+|latest)$/.exec(name);
      if (!ref) throw new Error(`placeholder ${v} is not one this test resolves`);
      if (!artifacts) {
        const st = await call("state", { workflow_id: played.workflowId });
        if (st.isError) throw new Error(textOf(st));
        artifacts = (st.structuredContent as { artifacts: typeof artifacts }).artifacts;
      }
      const h = artifacts![ref[1]!];
      const n = ref[2] === "latest" ? h!.latest : Number(ref[2]);
      return h!.versions[String(n)]!.ref;
    }
    if (Array.isArray(v)) return Promise.all(v.map(resolve));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = await resolve(x);
      return out;
    }
    return v;
  };
  return (await resolve(req)) as Record<string, unknown>;
}
