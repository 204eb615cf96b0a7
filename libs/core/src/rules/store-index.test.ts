import { describe, expect, it } from "vitest";
import { checkIndexIdentity, cosineSimilarity, indexFieldsFor, storeIndexIdentity, textsToEmbed, unitVector } from "./store-index.js";

describe("store index rules", () => {
  it("texts to embed: the whole value as JSON for $, strings as they are, other values as JSON, [*] one text per element", () => {
    const value = { title: "Hello", n: 3, tags: ["a", "b"], body: { text: "deep" }, empty: "" };
    expect(textsToEmbed(value, ["$"])).toEqual([{ field: "$", text: JSON.stringify(value, null, 2) }]);
    expect(textsToEmbed(value, ["title", "n", "body.text", "missing", "empty"])).toEqual([
      { field: "title", text: "Hello" },
      { field: "n", text: "3" },
      { field: "body.text", text: "deep" },
    ]);
    expect(textsToEmbed(value, ["tags[*]"])).toEqual([
      { field: "tags[*].0", text: "a" },
      { field: "tags[*].1", text: "b" },
    ]);
  });

  it("a put's fields: false none, its own paths, else the configured ones", () => {
    expect(indexFieldsFor(false, ["$"])).toEqual([]);
    expect(indexFieldsFor(["a"], ["$"])).toEqual(["a"]);
    expect(indexFieldsFor(null, ["$"])).toEqual(["$"]);
    expect(indexFieldsFor(undefined, ["b"])).toEqual(["b"]);
  });

  it("unit vectors are checked against dims and scaled; cosine similarity agrees with them", () => {
    expect(unitVector([3, 4], 2, "v")).toEqual([0.6, 0.8]);
    expect(unitVector([0, 0], 2, "v")).toEqual([0, 0]);
    expect(() => unitVector([1, 2, 3], 2, "the embedding")).toThrow("the embedding has 3 dimensions; store.index.dims is 2");
    expect(() => unitVector([1, Number.NaN], 2, "v")).toThrow(/finite/);
    expect(() => unitVector("x", 2, "v")).toThrow(/not an array/);
    expect(cosineSimilarity([1, 0], [0.6, 0.8])).toBeCloseTo(0.6);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
  });

  it("identity: embed, dims and fields; recorded vs configured", () => {
    const a = storeIndexIdentity({ embed: "./e.ts:embed", dims: 256, fields: ["$"] });
    expect(a).toBe('{"embed":"./e.ts:embed","dims":256,"fields":["$"]}');
    const b = storeIndexIdentity({ embed: "./e.ts:embed", dims: 128, fields: ["$"] });
    expect(checkIndexIdentity(a, a, true)).toEqual({ status: "same" });
    expect(checkIndexIdentity(null, a, false)).toEqual({ status: "new" });
    expect(checkIndexIdentity(null, a, true)).toEqual({ status: "stale", recorded: null });
    expect(checkIndexIdentity(b, a, false)).toEqual({ status: "stale", recorded: b });
  });
});

describe("textsAtPath", () => {
  it("reads $, nested keys, indexes, wildcards and field sets", async () => {
    const { textsAtPath } = await import("./text-at-path.js");
    const value = { a: { b: [{ c: "x" }, { c: "y" }] }, m: { p: 1, q: true } };
    expect(textsAtPath(value, "a.b[*].c")).toEqual(["x", "y"]);
    expect(textsAtPath(value, "a.b[-1].c")).toEqual(["y"]);
    expect(textsAtPath(value, "m.*")).toEqual(["1", "true"]);
    expect(textsAtPath(value, "{m.p,a.b[0]}")).toEqual(["1"]);
    expect(textsAtPath(value, "{m.p,missing}")).toEqual(["1"]);
    expect(textsAtPath(value, "a.b[7]")).toEqual([]);
    expect(textsAtPath(value, "m")).toEqual([JSON.stringify({ p: 1, q: true }, null, 2)]);
  });
});
