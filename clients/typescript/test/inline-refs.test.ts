// A served schema made self-contained for a tool's parameters.
import assert from "node:assert/strict";
import { test } from "node:test";
import { inlineRefs } from "../src/agents/inline-refs.js";

test("each reference is replaced by its definition; a description beside it is kept", () => {
  const schema = {
    $id: "/v1/packs/p/schemas#/artifacts/A",
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $defs: { Channel: { type: "string", enum: ["chat", "email"], description: "a channel" } },
    type: "object",
    properties: { channel: { $ref: "#/$defs/Channel", description: "where the answer goes" }, other: { items: { $ref: "#/$defs/Channel" } } },
  };
  assert.deepEqual(inlineRefs(schema), {
    type: "object",
    properties: {
      channel: { type: "string", enum: ["chat", "email"], description: "where the answer goes" },
      other: { items: { type: "string", enum: ["chat", "email"], description: "a channel" } },
    },
  });
});

test("a definition that refers to itself keeps its reference, and comes along under $defs", () => {
  const schema = {
    $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } },
    type: "object",
    properties: { root: { $ref: "#/$defs/Node" } },
  };
  const inlined = inlineRefs(schema);
  assert.deepEqual(inlined.properties, { root: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } });
  assert.deepEqual(inlined.$defs, { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } });
});
