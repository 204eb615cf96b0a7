import { describe, expect, it } from "vitest";
import { jsonContains, matchesAuthFilter, matchesStoreFilter } from "./filters.js";

describe("jsonContains (Postgres @> semantics)", () => {
  it.each([
    [{ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } }, true],
    [{ a: 1 }, { a: 2 }, false],
    [{ a: 1 }, { b: 1 }, false],
    [{ tags: ["x", "y"] }, { tags: ["y"] }, true],
    [{ tags: ["x"] }, { tags: ["z"] }, false],
    [{ a: null }, { a: null }, true],
    [{}, {}, true],
    [["x", 1], "x", true],
    [{ a: "1" }, { a: 1 }, false],
  ])("%j @> %j is %s", (haystack, needle, expected) => {
    expect(jsonContains(haystack, needle)).toBe(expected);
  });
});

describe("matchesAuthFilter", () => {
  it("supports implicit equality, $eq and $contains, combined with AND", () => {
    const meta = { owner: "alice", tags: ["a", "b"], nested: { x: 1 } };
    expect(matchesAuthFilter(meta, { owner: "alice" })).toBe(true);
    expect(matchesAuthFilter(meta, { owner: { $eq: "alice" } })).toBe(true);
    expect(matchesAuthFilter(meta, { owner: "bob" })).toBe(false);
    expect(matchesAuthFilter(meta, { tags: { $contains: "b" } })).toBe(true);
    expect(matchesAuthFilter(meta, { tags: { $contains: "c" } })).toBe(false);
    expect(matchesAuthFilter(meta, { owner: "alice", tags: { $contains: "c" } })).toBe(false);
    expect(matchesAuthFilter(meta, { nested: { x: 1 } })).toBe(true);
    expect(matchesAuthFilter({}, { owner: "alice" })).toBe(false);
    expect(matchesAuthFilter(meta, undefined)).toBe(true);
  });
});

describe("matchesStoreFilter", () => {
  it("supports equality and comparison operators on value fields", () => {
    const value = { kind: "note", score: 5 };
    expect(matchesStoreFilter(value, { kind: "note" })).toBe(true);
    expect(matchesStoreFilter(value, { score: { $gt: 4, $lte: 5 } })).toBe(true);
    expect(matchesStoreFilter(value, { score: { $lt: 5 } })).toBe(false);
    expect(matchesStoreFilter(value, { kind: { $ne: "note" } })).toBe(false);
    expect(matchesStoreFilter(value, { missing: { $gt: 1 } })).toBe(false);
  });
});
