import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** clients/typescript, from the compiled dist/test/ or the source test/. */
export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url).includes("/dist/") ? "../.." : "..");

/** The repository's root. */
export const repoDir = resolve(packageDir, "../..");
