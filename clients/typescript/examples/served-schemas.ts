// The pack's contract as JSON Schemas, as the running service serves it (GET
// /v1/packs/{pack}/schemas): what the agents' record and review tools are typed with.
import type { PackSchemas } from "../src/agents/index.js";
import type { Server } from "../test/serve.js";

export async function servedSchemas(server: Server, pack: string, token = server.tokens.orchestrator): Promise<PackSchemas> {
  const response = await fetch(`${server.url}/v1/packs/${encodeURIComponent(pack)}/schemas`, {
    headers: { accept: "application/json", authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`GET /v1/packs/${pack}/schemas: HTTP ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { schemas: PackSchemas }).schemas;
}
