// Writes src/generated/packs/PACK.ts from each committed ../schemas/PACK/openapi.json
// (the OpenAPI document the service serves for that pack). Given a folder, writes there
// instead: the test that finds stale files compares against such a fresh copy.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER, UNKNOWN } from "openapi-typescript";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const schemasDir = resolve(packageDir, "../schemas");
const outDir = resolve(process.argv[2] ?? join(packageDir, "src/generated/packs"));
mkdirSync(outDir, { recursive: true });

for (const pack of readdirSync(schemasDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
  const ast = await openapiTS(pathToFileURL(join(schemasDir, pack, "openapi.json")), {
    // A bare `type: object` (a request's context) is any object, not an empty one.
    emptyObjectsUnknown: true,
    // An output's content is whatever its artifact type's branch says: left as any
    // object, it would let a field the type's content does not have through.
    transform: (_schema, { path }) => (path === "#/components/schemas/Output/content" ? UNKNOWN : undefined),
  });
  writeFileSync(join(outDir, `${pack}.ts`), COMMENT_HEADER + astToString(ast));
}
