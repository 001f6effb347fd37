// The client's types are generated from the service's OpenAPI document, and each pack's
// from the document served for it: a change to a document that is not regenerated fails
// here, not in a user's build.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
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

test("src/generated/packs/PACK.ts is what `npm run generate` writes from each clients/schemas/PACK/openapi.json", () => {
  const out = mkdtempSync(join(tmpdir(), "handoff-packs-"));
  execFileSync(process.execPath, ["scripts/generate-packs.mjs", out], { cwd: packageDir, stdio: "pipe" });
  const fresh = readdirSync(out).sort();
  const committed = readdirSync(join(packageDir, "src/generated/packs")).sort();
  assert.deepEqual(committed, fresh, "src/generated/packs/ holds one file per pack of clients/schemas: run `npm run generate` in clients/typescript");
  for (const file of fresh) {
    const stale = readFileSync(join(packageDir, "src/generated/packs", file), "utf8") !== readFileSync(join(out, file), "utf8");
    assert.ok(!stale, `src/generated/packs/${file} is stale: run \`npm run generate\` in clients/typescript`);
  }
});
