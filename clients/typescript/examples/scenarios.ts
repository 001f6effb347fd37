// Request contents taken from the packs' scenario files, so the examples send what the
// engine's own tests send. A scenario plays at its own clock (each step's "now"); the
// service decides at its clock, so every time in a step is moved by the distance
// between the scenario's now and the real one.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoDir } from "../test/paths.js";

interface Step {
  name: string;
  now?: string;
  request: Record<string, unknown>;
  expect: Record<string, unknown>;
}

/** One step of a scenario: its request's own fields (no envelope) and its clock. */
export interface ScenarioStep {
  /** The step's request_id in its scenario file. */
  id: string;
  name: string;
  kind: string;
  actor: string;
  /** The scenario's time at this step, when the scenario sets one. */
  now: string | undefined;
  fields: Record<string, unknown>;
  expect: Record<string, unknown>;
}

// The envelope Workflow fills in itself.
const envelope = new Set(["request_id", "kind", "tenant_id", "organization_id", "trace_id", "actor", "workflow_id"]);

/** The steps of policies_test/handoff/<pack>/scenarios/<file>, by request_id. */
export function scenario(pack: string, file: string): Map<string, ScenarioStep> {
  const path = join(repoDir, "policies_test/handoff", pack, "scenarios", file);
  const { steps } = JSON.parse(readFileSync(path, "utf8")) as { steps: Step[] };
  const out = new Map<string, ScenarioStep>();
  let now: string | undefined;
  for (const s of steps) {
    now = s.now ?? now; // a step without now keeps the time of the one before
    const fields = Object.fromEntries(Object.entries(s.request).filter(([k]) => !envelope.has(k)));
    const actor = (s.request.actor as { id: string }).id;
    const id = s.request.request_id as string;
    out.set(id, { id, name: s.name, kind: s.request.kind as string, actor, now, fields, expect: s.expect });
  }
  return out;
}

/** The step's fields with its times moved to the present (a step set at no time is as is). */
export function present(step: ScenarioStep, realNow = new Date()): Record<string, unknown> {
  if (!step.now) return structuredClone(step.fields);
  const then = new Date(step.now);
  const ms = realNow.getTime() - then.getTime();
  const days = Math.round((utcDay(realNow) - utcDay(then)) / 86_400_000);
  return shift(step.fields, ms, days) as Record<string, unknown>;
}

const timestamp = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\b/g;
const date = /\b(\d{4}-\d{2}-\d{2})\b(?!T)/g;

// Timestamps move by the exact distance (a result retrieved 30 s before the step stays
// 30 s old); calendar dates, also inside messages, by whole days so texts and claims agree.
function shift(v: unknown, ms: number, days: number): unknown {
  if (typeof v === "string") {
    return v
      .replace(timestamp, (t) => new Date(new Date(t).getTime() + ms).toISOString().replace(/\.000Z$/, "Z"))
      .replace(date, (d) => new Date(new Date(`${d}T00:00:00Z`).getTime() + days * 86_400_000).toISOString().slice(0, 10));
  }
  if (Array.isArray(v)) return v.map((x) => shift(x, ms, days));
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shift(x, ms, days)]));
  }
  return v;
}

function utcDay(d: Date): number {
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

/** One step of a scenario file, by its request_id. */
export function step(pack: string, file: string, id: string): ScenarioStep {
  const s = scenario(pack, file).get(id);
  if (!s) throw new Error(`no step ${id} in ${pack}/${file}`);
  return s;
}
