// Writes src/generated/packs/PACK.ts from each committed ../schemas/PACK/openapi.json
// (the OpenAPI document the service serves for that pack). Given a folder, writes there
// instead: the test that finds stale files compares against such a fresh copy.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const schemasDir = resolve(packageDir, "../schemas");
const outDir = resolve(process.argv[2] ?? join(packageDir, "src/generated/packs"));
mkdirSync(outDir, { recursive: true });

for (const pack of readdirSync(schemasDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
  execFileSync(
    join(packageDir, "node_modules/.bin/openapi-typescript"),
    // A bare `type: object` (a request's context, an output's content before its type
    // narrows it) is any object, not an empty one.
    [join(schemasDir, pack, "openapi.json"), "--empty-objects-unknown", "-o", join(outDir, `${pack}.ts`)],
    { cwd: packageDir, stdio: "pipe" },
  );
}
