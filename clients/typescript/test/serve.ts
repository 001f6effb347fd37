// Starts a real `handoffctl serve` on a fresh Badger store, with a principals file of
// new random tokens. Tests and examples use it; nothing here stands in for the service.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoDir } from "./paths.js";
import { createInterface } from "node:readline";

export interface PrincipalSpec {
  name: string;
  tenant_id: string;
  type: "agent" | "human" | "system";
  id: string;
  roles?: string[];
  admin?: boolean;
}

/** What a client of a started server needs: its address and each principal's token. */
export type Server = Pick<Served, "url" | "tokens">;

export interface Served {
  url: string;
  /** Each principal's token, by name. */
  tokens: Record<string, string>;
  /** The store's folder. */
  db: string;
  /** Stops the server (SIGTERM: it drains and closes the store) and removes its folder. */
  stop(): Promise<void>;
}

const repo = repoDir;

/** The handoffctl binary: $HANDOFFCTL, or built once from the repository. */
export function handoffctl(): string {
  const given = process.env.HANDOFFCTL;
  if (given) return given;
  const built = join(mkdtempSync(join(tmpdir(), "handoffctl-")), "handoffctl");
  execFileSync("go", ["build", "-o", built, "./cmd/handoffctl"], { cwd: repo, stdio: "inherit" });
  process.env.HANDOFFCTL = built; // built once per process
  return built;
}

export async function startServe(principals: PrincipalSpec[]): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), "handoff-serve-"));
  const tokens: Record<string, string> = {};
  const entries = principals.map((p) => {
    const token = randomBytes(24).toString("hex");
    tokens[p.name] = token;
    return { ...p, token_sha256: createHash("sha256").update(token).digest("hex") };
  });
  const principalsFile = join(dir, "principals.json");
  writeFileSync(principalsFile, JSON.stringify({ principals: entries }));
  const db = join(dir, "db");
  const child = spawn(handoffctl(), ["-o", "json", "--db", db, "serve", "--addr", "127.0.0.1:0", "--principals", principalsFile], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`handoffctl serve did not start in 60 s: ${stderr}`)), 60_000);
    child.once("exit", (code) => fail(new Error(`handoffctl serve exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const event = JSON.parse(line) as { event?: string; url?: string };
        if (event.event === "serving" && event.url) {
          clearTimeout(timer);
          ok(event.url);
        }
      } catch {
        // not an event line
      }
    });
  });
  return { url, tokens, db, stop: () => stop(child, dir) };
}

async function stop(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
