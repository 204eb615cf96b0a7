import { aesKey, fieldCipher, type StoreSearchOptions, type ThreadSearch } from "@agent-server/core";
import { StatementCounter } from "@agent-server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "./storage.js";
import { JSON_KEYS } from "../test/sealed-scenario.js";
import { TestStorages } from "../test/storages.js";

/**
 * Store `filter`s and thread `values` filters read into values that are sealed with a key, so the driver
 * matches them in the process (sealed-scan.ts): the answers, pages included, must be those SQL gives
 * without a key.
 */
const sealed = new TestStorages(fieldCipher(aesKey("filters-test-key-0123456789abcde", "test key"), [], JSON_KEYS));
const plain = new TestStorages();
let withKey: PostgresStorage;
let withoutKey: PostgresStorage;

const ITEMS = 260; // more than the scan's first batch (100), so pages span batches

async function fill(s: PostgresStorage): Promise<void> {
  for (let i = 0; i < ITEMS; i++) {
    const value = {
      kind: ["a", "b", "c"][i % 3],
      n: i,
      tag: i % 2 ? "odd" : "even",
      nested: { x: i % 4 },
      name: `item-${String(i).padStart(3, "0")}`,
    };
    const vectors = i % 5 === 0 ? [{ field: "name", vector: [Math.cos(i / 50), Math.sin(i / 50)] }] : [];
    await s.store.put(["f", `g${i % 2}`], `k${i}`, value, { vectors, ttl: i % 7 === 0 ? 60 : null });
  }
  for (let i = 0; i < 60; i++) {
    await s.threads.create({ thread_id: `t${String(i).padStart(2, "0")}`, metadata: { group: i % 2, secret: `s${i % 3}` } });
    await s.threads.update(`t${String(i).padStart(2, "0")}`, {
      values: { topic: i % 3, n: i, list: [i % 2, "x"], deep: { k: i % 4 } },
      status: i % 4 === 0 ? "error" : "idle",
    });
  }
}

beforeAll(async () => {
  [withKey, withoutKey] = await Promise.all([sealed.create(), plain.create()]);
  await Promise.all([fill(withKey), fill(withoutKey)]);
}, 120_000);
afterAll(async () => {
  await Promise.all([sealed.cleanup(), plain.cleanup()]);
});

const STORE_SEARCHES: Array<[string[], StoreSearchOptions]> = [
  [["f"], { filter: { kind: "a" } }],
  [["f"], { filter: { kind: "a" }, limit: 7, offset: 5 }],
  [["f"], { filter: { kind: "b" }, limit: 50, offset: 40 }],
  [["f"], { filter: { n: { $gt: 10, $lte: 230 } }, limit: 100, offset: 30 }],
  [["f"], { filter: { nested: { x: 1 } }, limit: 20 }],
  [["f"], { filter: { tag: { $ne: "even" }, kind: { $eq: "c" } }, limit: 15, offset: 2 }],
  [["f"], { filter: { name: { $gte: "item-200" } }, limit: 100 }],
  [["f"], { filter: { missing: 1 } }],
  [["f"], { filter: { kind: "a" }, limit: 0 }],
  [["f", "g1"], { filter: { kind: "c" }, limit: 30, offset: 1 }],
  [["f"], { authFilter: { tag: "even" }, limit: 25, offset: 10 }],
  [["f"], { filter: { kind: "b" }, authFilter: { namespace: { $contains: "g0" } }, limit: 10 }],
  [["f"], { filter: { kind: "a" }, query: [1, 0], limit: 6, offset: 2 }],
  [["f"], { filter: { tag: "odd" }, query: [0, 1], limit: 100 }],
  [["f"], { filter: { n: { $lt: 100 } }, refreshTtl: true, limit: 12, offset: 3 }],
  [["f"], { limit: 5, offset: 2 }],
];

const THREAD_SEARCHES: ThreadSearch[] = [
  { values: { topic: 1 } },
  { values: { topic: 1 }, limit: 4, offset: 3 },
  { values: { list: [1] }, limit: 100 },
  { values: { deep: { k: 2 } }, metadata: { group: 0 }, limit: 50 },
  { values: { topic: 2 }, status: "error", sort_by: "thread_id", sort_order: "asc", limit: 100 },
  { values: { topic: 0 }, sort_by: "thread_id", sort_order: "desc", limit: 3, offset: 2 },
  { values: { list: ["x"] }, filter: { group: 1 }, limit: 100 },
  { values: { nothing: true } },
  { metadata: { secret: "s1" }, limit: 100 },
  { metadata: { secret: "s2" }, values: { topic: 2 }, limit: 5, offset: 1 },
  { filter: { secret: { $eq: "s0" } }, limit: 100 },
  { metadata: { group: 1 }, limit: 7, offset: 7 },
];

describe("sealed filters answer as SQL does without a key", () => {
  it("store search: filters, auth filters on values, queries, pages, refreshTtl", async () => {
    for (const [prefix, options] of STORE_SEARCHES) {
      const [a, b] = await Promise.all([withKey.store.search(prefix, options), withoutKey.store.search(prefix, options)]);
      const shape = (items: typeof a) => items.map((i) => [i.namespace.join("."), i.key, i.value, i.score]);
      expect(shape(a), JSON.stringify(options)).toEqual(shape(b));
    }
    expect((await withKey.store.search(["f"], { filter: { kind: "a" }, limit: 500 })).length).toBe(87);
    // refreshTtl pushes out the expiry of the page's items that have a TTL, and only theirs.
    const expiries = async () =>
      (await withKey.pool.query(`SELECT key, expires_at FROM "${withKey.schema}".store_items WHERE expires_at IS NOT NULL ORDER BY key`))
        .rows;
    const before = await expiries();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const page = await withKey.store.search(["f"], { filter: { n: { $lte: 21 } }, refreshTtl: true, limit: 3 });
    expect(page.map((i) => i.key)).toEqual(["k21", "k20", "k19"]);
    const moved = (await expiries()).filter((row, i) => row.expires_at.getTime() !== before[i].expires_at.getTime()).map((row) => row.key);
    expect(moved).toEqual(["k21"]);
  });

  it("thread search and count: values filters, sealed metadata keys, sorts, pages", async () => {
    for (const q of THREAD_SEARCHES) {
      const [a, b] = await Promise.all([withKey.threads.search(q), withoutKey.threads.search(q)]);
      expect(
        a.map((t) => [t.thread_id, t.values, t.metadata]),
        JSON.stringify(q),
      ).toEqual(b.map((t) => [t.thread_id, t.values, t.metadata]));
      const { limit: _l, offset: _o, sort_by: _s, sort_order: _d, ...filters } = q;
      expect(await withKey.threads.count(filters), JSON.stringify(q)).toBe(await withoutKey.threads.count(filters));
    }
  });

  it("matches in the process in a few statements: a cursor read in growing batches", async () => {
    const counter = new StatementCounter(withKey);
    try {
      const log = await counter.count(() => withKey.store.search(["f"], { filter: { kind: "a" }, limit: 50, offset: 30 }), 20);
      // 80 matches needed, one candidate in three matches: ~240 rows, fetched as 100 then 200.
      expect(log.statements.map((sql) => sql.trim().split(/\s+/)[0])).toEqual(["BEGIN", "DECLARE", "FETCH", "FETCH", "COMMIT"]);
    } finally {
      counter.uninstall();
    }
  });
});
