import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { addMs, nowIso } from "@agent-server/core";
import { openSqliteStorage, type SqliteStorage } from "./storage.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const opened: SqliteStorage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});
async function open(path = tmp.file()): Promise<SqliteStorage> {
  const s = await openSqliteStorage({ path });
  opened.push(s);
  return s;
}

describe("store", () => {
  it("put/get/delete, prefix search with filters, newest update first, namespaces", async () => {
    const s = await open();
    await s.store.put(["users", "alice"], "k1", { n: 1, tag: "x" });
    await s.store.put(["users", "bob"], "k1", { n: 2, tag: "y" });
    await s.store.put(["users_other"], "k1", { n: 3 });
    await s.store.put(["users", "alice", "deep"], "k2", { n: 4, tag: "x" });
    const first = (await s.store.get(["users", "alice"], "k1"))!;
    await s.store.put(["users", "alice"], "k1", { n: 5, tag: "x" });
    const replaced = (await s.store.get(["users", "alice"], "k1"))!;
    expect(replaced.value).toEqual({ n: 5, tag: "x" });
    expect(replaced.created_at).toBe(first.created_at);

    const found = await s.store.search(["users"]);
    expect(found.map((i) => i.value.n)).toEqual([5, 4, 2]); // users_other is not under ["users"]
    expect((await s.store.search(["users"], { filter: { tag: "x" } })).map((i) => i.value.n)).toEqual([5, 4]);
    expect((await s.store.search(["users"], { filter: { n: { $gt: 2 } }, limit: 1, offset: 1 })).map((i) => i.value.n)).toEqual([4]);
    expect((await s.store.search([])).length).toBe(4);

    expect(await s.store.listNamespaces()).toEqual([["users", "alice"], ["users", "alice", "deep"], ["users", "bob"], ["users_other"]]);
    expect(await s.store.listNamespaces({ prefix: ["users"], maxDepth: 2 })).toEqual([
      ["users", "alice"],
      ["users", "bob"],
    ]);
    expect(await s.store.listNamespaces({ prefix: ["*", "alice"] })).toEqual([
      ["users", "alice"],
      ["users", "alice", "deep"],
    ]);
    expect(await s.store.listNamespaces({ suffix: ["deep"] })).toEqual([["users", "alice", "deep"]]);

    expect(await s.store.delete(["users", "bob"], "k1")).toBe(true);
    expect(await s.store.delete(["users", "bob"], "k1")).toBe(false);
    expect(await s.store.get(["users", "bob"], "k1")).toBeNull();

    // The LangGraph BaseStore sees the same items.
    expect((await s.langgraphStore.get(["users", "alice"], "k1"))?.value).toEqual({ n: 5, tag: "x" });
  });
});

describe("crons", () => {
  it("create/update/search/listDue/advance", async () => {
    const s = await open();
    const now = nowIso();
    const due = await s.crons.create({
      cron_id: randomUUID(),
      assistant_id: "a",
      schedule: "* * * * *",
      next_run_date: addMs(now, -1000),
      metadata: { owner: "x" },
    });
    await s.crons.create({ cron_id: randomUUID(), assistant_id: "a", schedule: "* * * * *", next_run_date: addMs(now, 60_000) });
    await s.crons.create({
      cron_id: randomUUID(),
      assistant_id: "b",
      schedule: "* * * * *",
      next_run_date: addMs(now, -500),
      enabled: false,
    });
    expect((await s.crons.listDue(now, 10)).map((c) => c.cron_id)).toEqual([due.cron_id]);
    expect(await s.crons.count({ assistant_id: "a" })).toBe(2);
    expect((await s.crons.search({ filter: { owner: "x" } })).map((c) => c.cron_id)).toEqual([due.cron_id]);
    const next = addMs(now, 60_000);
    const [w1, w2] = await Promise.all([
      s.crons.advance(due.cron_id, due.next_run_date!, next),
      s.crons.advance(due.cron_id, due.next_run_date!, next),
    ]);
    expect([w1, w2].filter(Boolean)).toHaveLength(1);
    expect(await s.crons.listDue(now, 10)).toEqual([]);
    expect(await s.crons.update(due.cron_id, { enabled: false, metadata: { owner: "y" } })).toMatchObject({
      enabled: false,
      metadata: { owner: "y" },
    });
    expect(await s.crons.delete(due.cron_id)).toBe(true);
    expect(await s.crons.get(due.cron_id)).toBeNull();
  });
});

describe("deliveries", () => {
  it("enqueue, claim once across connections, retry, deliver, fail, purge", async () => {
    const path = tmp.file();
    const a = await open(path);
    const b = await open(path);
    const now = nowIso();
    for (let i = 0; i < 6; i++) {
      await a.deliveries.enqueue({
        delivery_id: `d${i}`,
        kind: "webhook",
        url: "http://x",
        payload: { i },
        next_attempt_at: addMs(now, -1000 + i),
      });
    }
    const [c1, c2] = await Promise.all([
      a.deliveries.claimDue({ now, limit: 4, leaseMs: 30_000 }),
      b.deliveries.claimDue({ now, limit: 4, leaseMs: 30_000 }),
    ]);
    const ids = [...c1, ...c2].map((d) => d.delivery_id);
    expect(ids.sort()).toEqual(["d0", "d1", "d2", "d3", "d4", "d5"]);
    expect([...c1, ...c2].every((d) => d.attempts === 1)).toBe(true);
    expect(await a.deliveries.claimDue({ now, limit: 10, leaseMs: 30_000 })).toEqual([]);

    await a.deliveries.markDelivered("d0");
    await a.deliveries.markFailed("d1", "boom");
    await a.deliveries.markRetry("d2", { nextAttemptAt: addMs(now, -1), error: "later" });
    expect(await a.deliveries.get("d0")).toMatchObject({ status: "delivered", payload: null });
    expect(await a.deliveries.get("d1")).toMatchObject({ status: "failed", payload: null, last_error: "boom" });
    const retried = await a.deliveries.claimDue({ now, limit: 10, leaseMs: 30_000 });
    expect(retried.map((d) => [d.delivery_id, d.attempts, d.payload])).toEqual([["d2", 2, { i: 2 }]]);
    expect(await a.deliveries.purgeFinished(addMs(nowIso(), 1000))).toBe(2);
    expect(await a.deliveries.get("d0")).toBeNull();
  });
});

describe("events", () => {
  it("append numbers per run, list after an id, expiry, delete for run", async () => {
    const s = await open();
    const e1 = await s.events.append("r1", "values", { a: 1 }, { ttlMs: 60_000 });
    const e2 = await s.events.append("r1", "updates", { b: new Date("2024-01-01T00:00:00.000Z") }, { ttlMs: 60_000 });
    const other = await s.events.append("r2", "values", null, { ttlMs: 1 });
    expect([e1.id, e2.id, other.id]).toEqual(["1", "2", "1"]);
    expect(await s.events.list("r1")).toEqual([e1, { id: "2", event: "updates", data: { b: "2024-01-01T00:00:00.000Z" } }]);
    expect((await s.events.list("r1", { after: "1" })).map((e) => e.id)).toEqual(["2"]);
    expect((await s.events.list("r1", { limit: 1 })).map((e) => e.id)).toEqual(["1"]);
    expect(await s.events.deleteExpired(addMs(nowIso(), 1000))).toBe(1);
    expect(await s.events.list("r2")).toEqual([]);
    expect(await s.events.deleteForRun("r1")).toBe(2);
  });
});

describe("truncate and close", () => {
  it("truncate clears what the flags name, keeping system assistants", async () => {
    const s = await open();
    await s.assistants.create({ assistant_id: "sys", graph_id: "g", metadata: { created_by: "system" } });
    await s.assistants.create({ assistant_id: "user", graph_id: "g" });
    const thread_id = randomUUID();
    await s.threads.create({ thread_id });
    const run = await s.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "user" });
    await s.runs.recordResult(run.run_id, { values: {} });
    await s.store.put(["n"], "k", { v: 1 });
    await s.truncate({ runs: true });
    expect(await s.runs.get(run.run_id)).toBeNull();
    expect(await s.threads.get(thread_id)).not.toBeNull();
    await s.truncate({ threads: true, assistants: true, store: true, checkpointer: true });
    expect(await s.threads.count({})).toBe(0);
    expect((await s.assistants.search({})).map((a) => a.assistant_id)).toEqual(["sys"]);
    expect(await s.store.get(["n"], "k")).toBeNull();
  });

  it("close is idempotent and the driver is unusable afterwards", async () => {
    const s = await openSqliteStorage({ path: tmp.file() });
    await s.close();
    await s.close();
    await expect(s.threads.get("x")).rejects.toThrow();
  });
});
