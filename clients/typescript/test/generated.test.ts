// The client's types are generated from the service's OpenAPI document: a change to the
// document that is not regenerated fails here, not in a user's build.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { packageDir } from "./paths.js";

test("src/generated/openapi.ts is what `npm run generate` writes from service/openapi.json", () => {
  const out = join(mkdtempSync(join(tmpdir(), "handoff-openapi-")), "openapi.ts");
  execFileSync(join(packageDir, "node_modules/.bin/openapi-typescript"), ["../../service/openapi.json", "-o", out], {
    cwd: packageDir,
    stdio: "pipe",
  });
  const committed = readFileSync(join(packageDir, "src/generated/openapi.ts"), "utf8");
  assert.ok(committed === readFileSync(out, "utf8"), "src/generated/openapi.ts is stale: run `npm run generate` in clients/typescript");
});
