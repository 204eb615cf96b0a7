import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { WireSerializationError } from "../errors.js";
import { stringifyWire, toWireJson, toWireObject } from "./json.js";

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
