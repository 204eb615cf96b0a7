import { describe, expect, it } from "vitest";
import { checkIndexIdentity, storeIndexIdentity, unitVector, type Storage, type StoreVector } from "@agent-server/core";
import { sleep, uid, type Harness } from "./harness.js";

/** Unit vectors of 4 dimensions: what core's `unitVector` makes of an embedding before a driver stores it. */
const unit = (...xs: number[]) => unitVector(xs, 4, "test vector");
const field = (vector: number[], name = "$"): StoreVector[] => [{ field: name, vector }];

const X = unit(1, 0, 0, 0);
const Y = unit(0, 1, 0, 0);
const XY = unit(1, 1, 0, 0);
const MOSTLY_X = unit(0.9, 0.1, 0, 0);

async function keys(s: Storage, prefix: string[], options: Parameters<Storage["store"]["search"]>[1]) {
  return (await s.store.search(prefix, options)).map((i) => i.key);
}

/** Semantic store search (conformance part `vectors`): vectors stored with items, ranked by cosine similarity. */
export function describeVectorSearch(h: Harness): void {
  describe("vector search: ranking", () => {
    it("ranks by cosine similarity, best first, with scores; items without vectors are left out; without a query nothing changes", async () => {
      const s = await h.open();
      const ns = ["vec", uid()];
      await s.store.put(ns, "x", { name: "x" }, { vectors: field(X) });
      await s.store.put(ns, "y", { name: "y" }, { vectors: field(Y) });
      await s.store.put(ns, "xy", { name: "xy" }, { vectors: field(XY) });
      await s.store.put(ns, "plain", { name: "plain" });
      await s.store.put(ns, "off", { name: "off" }, { vectors: [], index: false });

      const found = await s.store.search(ns, { query: MOSTLY_X });
      expect(found.map((i) => i.key)).toEqual(["x", "xy", "y"]);
      expect(found[0]!.score).toBeCloseTo(0.9939, 3);
      expect(found[1]!.score).toBeCloseTo(0.7809, 3);
      expect(found[2]!.score).toBeCloseTo(0.1104, 3);
      expect(found[0]).toMatchObject({ namespace: ns, value: { name: "x" } });
      // Without a query: every item, newest update first, and no score.
      const plain = await s.store.search(ns, {});
      expect(plain.map((i) => i.key)).toEqual(["off", "plain", "xy", "y", "x"]);
      expect(plain.every((i) => i.score === undefined)).toBe(true);
    });

    it("an item scores its best field; opposite vectors score -1; a zero vector scores 0", async () => {
      const s = await h.open();
      const ns = ["vec", uid()];
      await s.store.put(ns, "two-fields", { t: 1 }, { vectors: [...field(Y, "title"), ...field(X, "body")] });
      await s.store.put(ns, "opposite", { t: 2 }, { vectors: field(unit(-1, 0, 0, 0)) });
      await s.store.put(ns, "zero", { t: 3 }, { vectors: field(unit(0, 0, 0, 0)) });
      const found = await s.store.search(ns, { query: X });
      expect(found.map((i) => [i.key, Math.round(i.score! * 1000) / 1000])).toEqual([
        ["two-fields", 1],
        ["zero", 0],
        ["opposite", -1],
      ]);
    });

    it("applies the namespace prefix, filter, limit and offset with a query; equal scores list newest update first", async () => {
      const s = await h.open();
      const root = uid();
      await s.store.put([root, "a"], "a1", { kind: "k", n: 1 }, { vectors: field(unit(1, 0.1, 0, 0)) });
      await s.store.put([root, "a"], "a2", { kind: "k", n: 2 }, { vectors: field(unit(1, 0.2, 0, 0)) });
      await s.store.put([root, "a"], "a3", { kind: "other", n: 3 }, { vectors: field(X) });
      await s.store.put([root, "b"], "b1", { kind: "k", n: 4 }, { vectors: field(X) });
      await s.store.put([root, "a"], "same1", { kind: "tie" }, { vectors: field(Y) });
      await s.store.put([root, "a"], "same2", { kind: "tie" }, { vectors: field(Y) });
      // a3 and b1 score 1 (b1 is newer); then a1, a2; the two equal ones newest first.
      expect(await keys(s, [root], { query: X, limit: 10 })).toEqual(["b1", "a3", "a1", "a2", "same2", "same1"]);
      expect(await keys(s, [root, "a"], { query: X, filter: { kind: "k" } })).toEqual(["a1", "a2"]);
      expect(await keys(s, [root, "a"], { query: X, filter: { n: { $gte: 2 } } })).toEqual(["a3", "a2"]);
      expect(await keys(s, [root, "a"], { query: X, limit: 2, offset: 1 })).toEqual(["a1", "a2"]);
      expect(await keys(s, [root, "a"], { query: Y, filter: { kind: "tie" } })).toEqual(["same2", "same1"]);
    });

    it("applies the auth filter with a query", async () => {
      const s = await h.open();
      const root = uid();
      await s.store.put([root, "alice"], "mine", { owner: "alice" }, { vectors: field(MOSTLY_X) });
      await s.store.put([root, "bob"], "theirs", { owner: "bob" }, { vectors: field(X) });
      expect(await keys(s, [root], { query: X, authFilter: { owner: "alice" } })).toEqual(["mine"]);
    });
  });

  describe("vector search: lifecycle of vectors", () => {
    it("a put replaces the item's vectors (a field it no longer has is gone); a put without vectors leaves none", async () => {
      const s = await h.open();
      const ns = ["vec", uid()];
      await s.store.put(ns, "k", { v: 1 }, { vectors: [...field(X, "a"), ...field(Y, "b")] });
      await s.store.put(ns, "other", { v: 0 }, { vectors: field(MOSTLY_X) });
      expect(await keys(s, ns, { query: Y })).toEqual(["k", "other"]);
      await s.store.put(ns, "k", { v: 2 }, { vectors: field(X, "a") });
      expect(await keys(s, ns, { query: Y })).toEqual(["other", "k"]);
      await s.store.put(ns, "k", { v: 3 });
      expect(await keys(s, ns, { query: Y })).toEqual(["other"]);
    });

    it("deleting an item deletes its vectors: the same key put again without vectors is not found by a query", async () => {
      const s = await h.open();
      const ns = ["vec", uid()];
      await s.store.put(ns, "k", { v: 1 }, { vectors: field(X) });
      expect(await s.store.delete(ns, "k")).toBe(true);
      expect(await keys(s, ns, { query: X })).toEqual([]);
      await s.store.put(ns, "k", { v: 2 });
      expect(await keys(s, ns, { query: X })).toEqual([]);
      expect(await s.store.replaceVectors!(ns, "gone", field(X))).toBe(false);
    });

    it("an expired item is never found by a query; a sweep deletes its vectors with it", async () => {
      const s = await h.open();
      const ns = ["vec", uid()];
      await s.store.put(ns, "short", { v: 1 }, { ttl: 0.0005, vectors: field(X) }); // 30 ms
      await s.store.put(ns, "long", { v: 2 }, { ttl: 60, vectors: field(MOSTLY_X) });
      await sleep(60);
      expect(await keys(s, ns, { query: X })).toEqual(["long"]);
      if (s.store.sweepExpired) {
        expect(await s.store.sweepExpired(new Date().toISOString(), 100)).toBeGreaterThanOrEqual(1);
        await s.store.put(ns, "short", { v: 3 });
        expect(await keys(s, ns, { query: X })).toEqual(["long"]);
      }
    });

    it("a query read with refreshTtl refreshes the found items' expiry", async () => {
      const s = await h.open();
      if (!s.store.sweepExpired) return;
      const ns = ["vec", uid()];
      await s.store.put(ns, "k", { v: 1 }, { ttl: 0.02, vectors: field(X) }); // 1.2 s
      await sleep(300);
      const refreshedAt = Date.now();
      expect(await keys(s, ns, { query: X, refreshTtl: true })).toEqual(["k"]);
      expect(await s.store.sweepExpired(new Date(refreshedAt + 1000).toISOString(), 100)).toBe(0);
    });

    it("replaceVectors changes an item's ranking without touching the item", async () => {
      const s = await h.open();
      const ns = ["vec", uid()];
      await s.store.put(ns, "k", { v: 1 }, { vectors: field(Y) });
      await s.store.put(ns, "other", { v: 2 }, { vectors: field(MOSTLY_X) });
      const before = await s.store.get(ns, "k");
      expect(await s.store.replaceVectors!(ns, "k", field(X))).toBe(true);
      expect(await keys(s, ns, { query: X })).toEqual(["k", "other"]);
      expect(await s.store.get(ns, "k")).toEqual(before);
    });
  });

  describe("vector search: re-index support", () => {
    it("scanIndexable pages through live items in (namespace, key) order with each put's index choice", async () => {
      const s = await h.open();
      const root = uid();
      await s.store.put([root, "b"], "k1", { v: 1 }, { index: ["text"] });
      await s.store.put([root, "a"], "k2", { v: 2 }, { index: false });
      await s.store.put([root, "a"], "k1", { v: 3 });
      await s.store.put([root, "a"], "gone", { v: 4 }, { ttl: 0.0005 });
      await sleep(60);
      const seen: Array<[string, string, unknown]> = [];
      let cursor = null;
      for (;;) {
        const batch = await s.store.scanIndexable!(cursor, 2);
        if (batch.length === 0) break;
        expect(batch.length).toBeLessThanOrEqual(2);
        for (const item of batch) if (item.namespace[0] === root) seen.push([item.namespace[1]!, item.key, item.index]);
        const last = batch[batch.length - 1]!;
        cursor = { namespace: last.namespace, key: last.key };
      }
      expect(seen).toEqual([
        ["a", "k1", null],
        ["a", "k2", false],
        ["b", "k1", ["text"]],
      ]);
    });

    it("records the index identity (null at first); a different configured identity reads as stale", async () => {
      const s = await h.open();
      const settings = { embed: "./embed.ts:embed", dims: 4, fields: ["$"] };
      const identity = storeIndexIdentity(settings);
      expect(await s.store.getIndexIdentity!()).toBeNull();
      await s.store.setIndexIdentity!(identity);
      expect(await s.store.getIndexIdentity!()).toBe(identity);
      const other = storeIndexIdentity({ ...settings, dims: 8 });
      expect(checkIndexIdentity(await s.store.getIndexIdentity!(), other, false)).toEqual({ status: "stale", recorded: identity });
      expect(checkIndexIdentity(await s.store.getIndexIdentity!(), identity, true)).toEqual({ status: "same" });
      if (h.hasReopen) {
        const again = await h.reopen(s);
        expect(await again.store.getIndexIdentity!()).toBe(identity);
        await again.store.setIndexIdentity!(null);
        expect(await again.store.getIndexIdentity!()).toBeNull();
      }
    });
  });
}

/** For a driver declared without vector search: none of its four methods is there. */
export function describeVectorSearchAbsent(h: Harness): void {
  describe("vector search (left out by this driver)", () => {
    it("has no getIndexIdentity, setIndexIdentity, scanIndexable nor replaceVectors", async () => {
      const s = await h.open();
      const { getIndexIdentity, setIndexIdentity, scanIndexable, replaceVectors } = s.store;
      expect({ getIndexIdentity, setIndexIdentity, scanIndexable, replaceVectors }).toEqual({
        getIndexIdentity: undefined,
        setIndexIdentity: undefined,
        scanIndexable: undefined,
        replaceVectors: undefined,
      });
    });
  });
}
