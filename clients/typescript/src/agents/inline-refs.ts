// A served JSON Schema made self-contained for a tool's parameters: a model provider reads
// one schema object, so each "#/$defs/Name" reference of the document is replaced by the
// definition it names.

export type JsonSchema = Record<string, unknown>;

const localRef = /^#\/\$defs\/(.+)$/;

/**
 * schema with its references into defs (the served document's $defs) inlined, without the
 * document's own $id, $schema and $defs. A definition that refers to itself, directly or
 * not, cannot be inlined: its references stay, and the definitions they need come along
 * under $defs, which a tool's parameters may carry.
 */
export function inlineRefs(schema: JsonSchema, defs: Record<string, JsonSchema> = (schema.$defs ?? {}) as Record<string, JsonSchema>): JsonSchema {
  const kept = new Set<string>();
  const walk = (node: unknown, open: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, open));
    if (node === null || typeof node !== "object") return node;
    const { $ref, ...rest } = node as JsonSchema;
    const name = typeof $ref === "string" ? localRef.exec($ref)?.[1] : undefined;
    const out: JsonSchema = {};
    if (name !== undefined && defs[name] !== undefined) {
      if (open.includes(name)) {
        kept.add(name);
        out.$ref = $ref;
      } else {
        // The definition first: a description beside the reference is the more specific one.
        Object.assign(out, walk(defs[name], [...open, name]));
      }
    } else if ($ref !== undefined) {
      out.$ref = $ref;
    }
    for (const [k, v] of Object.entries(rest)) {
      if (k === "$defs" || k === "$id" || k === "$schema") continue;
      out[k] = walk(v, open);
    }
    return out;
  };
  const inlined = walk(schema, []) as JsonSchema;
  const needed: Record<string, unknown> = {};
  for (const name of kept) needed[name] = walk(defs[name], [name]); // visits names added on the way
  if (kept.size > 0) inlined.$defs = needed;
  return inlined;
}
