import { AIMessage, HumanMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WireSerializationError } from "../errors.js";
import { jsonDepthExceeds, MAX_JSON_DEPTH, stringifyWire, toWireJson, toWireObject } from "./json.js";

/** `depth` levels of objects and arrays, alternating (the outermost is level 1). */
function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = depth; level >= 1; level--) value = level % 2 ? { child: value, n: level } : [level, value];
  return value;
}

describe("toWireJson", () => {
  it("turns Dates into ISO strings and drops undefined members", () => {
    const at = new Date("2026-01-02T03:04:05.678Z");
    expect(toWireJson({ at, gone: undefined, list: [undefined, 1] })).toEqual({
      at: "2026-01-02T03:04:05.678Z",
      list: [null, 1],
    });
  });

  it("serializes LangChain messages as the official server does ({...data, type})", () => {
    const json = toWireJson({ messages: [new HumanMessage({ content: "hi", id: "m1" }), new AIMessage("yo")] }) as {
      messages: Array<Record<string, unknown>>;
    };
    expect(json.messages[0]).toMatchObject({ type: "human", content: "hi", id: "m1" });
    expect(json.messages[1]).toMatchObject({ type: "ai", content: "yo" });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("returns a copy that shares nothing with the input", () => {
    const input = { nested: { list: [{ a: 1 }] } };
    const out = toWireJson(input) as typeof input;
    out.nested.list[0].a = 2;
    expect(input.nested.list[0].a).toBe(1);
  });

  it("keeps unicode, large and deeply nested values intact", () => {
    const deep: Record<string, unknown> = {};
    let cursor = deep;
    for (let i = 0; i < 200; i++) cursor = (cursor.next = {}) as Record<string, unknown>;
    const value = { text: "héllo 👋 \u0000 日本", big: "x".repeat(1_000_000), deep };
    expect(toWireJson(value)).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it.each([
    ["a BigInt", { n: 10n }, "$.n"],
    ["a function", { f: () => 1 }, "$.f"],
    ["a symbol in an array", { list: [Symbol("s")] }, "$.list[0]"],
    ["a Map", { m: new Map() }, "$.m"],
  ])("refuses %s with a typed error naming the path", (_label, value, path) => {
    expect(() => toWireJson(value)).toThrow(WireSerializationError);
    try {
      toWireJson(value);
    } catch (error) {
      expect((error as WireSerializationError).path).toBe(path);
    }
  });

  it("refuses cycles", () => {
    const a: Record<string, unknown> = {};
    a.self = { back: a };
    expect(() => toWireJson(a)).toThrow(/cyclic/);
  });

  it("accepts shared (non-cyclic) references", () => {
    const shared = { x: 1 };
    expect(toWireJson({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it("maps non-finite numbers to null and refuses non-object roots where an object is required", () => {
    expect(toWireJson([NaN, Infinity])).toEqual([null, null]);
    expect(() => toWireObject([1])).toThrow(WireSerializationError);
    expect(stringifyWire({ a: 1 })).toBe('{"a":1}');
  });
});

describe("JSON depth", () => {
  it("refuses nesting beyond its bound with WireSerializationError, not a stack overflow", () => {
    expect(() => toWireJson(nested(3000))).toThrow(WireSerializationError);
    expect(() => toWireJson(nested(3000))).toThrow(/nested deeper than 1000 levels/);
    // Everything a request may carry, plus the levels the server wraps around it, converts.
    expect(toWireJson(nested(MAX_JSON_DEPTH + 100))).toEqual(nested(MAX_JSON_DEPTH + 100));
  });

  it("measures depth exactly, without recursion", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 1, max: 2000 }), (depth, limit) => {
        expect(jsonDepthExceeds(nested(depth), limit)).toBe(depth > limit);
      }),
      { numRuns: 200 },
    );
    expect(jsonDepthExceeds(nested(200_000))).toBe(true);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it("counts the deepest branch, whatever the breadth", () => {
    const wide = { a: Array.from({ length: 1000 }, () => ({ b: 1 })), deep: nested(10) };
    expect(jsonDepthExceeds(wide, 11)).toBe(false);
    expect(jsonDepthExceeds(wide, 10)).toBe(true);
    expect(jsonDepthExceeds("scalar", 1)).toBe(false);
  });
});
