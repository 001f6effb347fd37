// The adapters are tested against the framework versions the lockfile installs. A user gets
// a peer-dependency warning outside the declared ranges; a bump of the installed versions
// outside them fails here until the range moves (and the adapters' tests run on the bump).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { packageDir } from "./paths.js";

type Manifest = {
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as Manifest;

test("every installed framework is inside the range the adapters declare", () => {
  const peers = Object.entries(manifest.peerDependencies ?? {});
  assert.ok(peers.length >= 3, "the adapters declare their frameworks");
  for (const [name, range] of peers) {
    const installed = JSON.parse(readFileSync(join(packageDir, "node_modules", name, "package.json"), "utf8")) as Manifest;
    assert.ok(satisfies(installed.version, range), `${name} ${installed.version} is outside the adapters' range ${range}`);
    assert.equal(manifest.devDependencies?.[name], installed.version, `${name}: the tested version is pinned in devDependencies`);
  }
});

test("the client needs nothing beyond Node.js: no dependencies, and its modules import only node: and each other", () => {
  assert.deepEqual(manifest.dependencies ?? {}, {});
  const src = join(packageDir, "src");
  const adapters = new Set(["agents", "langgraph"]);
  const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !adapters.has(f.split("/")[0]!));
  assert.ok(files.includes("client.ts"));
  for (const f of files) {
    const text = readFileSync(join(src, f), "utf8");
    for (const [, spec] of text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms)) {
      assert.ok(spec!.startsWith("./") || spec!.startsWith("../") || spec!.startsWith("node:"), `src/${f} imports ${spec}`);
    }
  }
});

test("the range check itself", () => {
  assert.ok(satisfies("0.20.3", "~0.20.0"));
  assert.ok(!satisfies("0.21.0", "~0.20.0"));
  assert.ok(satisfies("1.9.0", "^1.3.4"));
  assert.ok(!satisfies("1.3.3", "^1.3.4"));
  assert.ok(!satisfies("2.0.0", "^1.3.4"));
  assert.ok(!satisfies("1.7.3-rc.1", "~1.7.3"));
});

/** Whether version is in a caret or tilde range (the only forms package.json uses here). */
function satisfies(version: string, range: string): boolean {
  const m = /^([~^])(\d+)\.(\d+)\.(\d+)$/.exec(range);
  const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!m || !v) return false;
  const [lo, have] = [m.slice(2).map(Number), v.slice(1).map(Number)] as [number[], number[]];
  const cmp = have[0]! - lo[0]! || have[1]! - lo[1]! || have[2]! - lo[2]!;
  if (cmp < 0) return false;
  if (m[1] === "~") return have[0] === lo[0] && have[1] === lo[1];
  return lo[0]! > 0 ? have[0] === lo[0] : have[1] === lo[1];
}
