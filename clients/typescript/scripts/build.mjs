// Builds the published package: dist/esm (ES modules) and dist/cjs (CommonJS), each with
// its declarations, from the same sources. A package.json in each folder tells Node.js and
// TypeScript which module system its .js and .d.ts files are, whatever the root says.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(packageDir, "node_modules", "typescript", "bin", "tsc");
const builds = [
  { project: "tsconfig.esm.json", out: "dist/esm", type: "module" },
  { project: "tsconfig.cjs.json", out: "dist/cjs", type: "commonjs" },
];

function compile(project) {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [tsc, "-p", project], { cwd: packageDir, stdio: "inherit" });
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? ok() : fail(new Error(`tsc -p ${project} exited ${code}`))));
  });
}

for (const { out } of builds) rmSync(join(packageDir, out), { recursive: true, force: true });
// The two compilations are independent: side by side they take the time of one.
await Promise.all(builds.map(({ project }) => compile(project)));
for (const { out, type } of builds) {
  mkdirSync(join(packageDir, out), { recursive: true });
  writeFileSync(join(packageDir, out, "package.json"), JSON.stringify({ type }) + "\n");
}
