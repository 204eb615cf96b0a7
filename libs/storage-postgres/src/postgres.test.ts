import { ConflictError, toWireJson, WireSerializationError } from "@agent-server/core";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { createTestSchema } from "@agent-server/testing/postgres";
import { openPostgresStorage, type PostgresStorage } from "./storage.js";
import { TestStorages } from "../test/storages.js";
import { threadLockKey } from "./thread-lock.js";

const storages = new TestStorages();
afterAll(() => storages.cleanup());

const id = () => crypto.randomUUID();

async function seed(s: PostgresStorage) {
  const assistant = await s.assistants.create({ assistant_id: id(), graph_id: "agent" });
  const thread = await s.threads.create({ thread_id: id() });
  return { assistant_id: assistant.assistant_id, thread_id: thread.thread_id };
}

const awkward = () => ({
  nul: "a\u0000b",
  key: { "k\u0000ey": "\uE000 escape char", lone: "x\uD800y" },
  emoji: "😀👍🏽",
  nested: [{ a: [null, true, 0.1, 1e21] }],
  date: new Date("2024-02-29T12:34:56.789Z"),
});

describe("postgres driver specifics", () => {
  it("sizes the pool it makes by poolSize (the server passes one for its workers)", async () => {
    const { url, schema, drop } = await createTestSchema("pool");
    const storage = await openPostgresStorage({ connectionString: url, schema, poolSize: 7 });
    try {
      expect((storage.pool as unknown as { options: { max: number } }).options.max).toBe(7);
    } finally {
      await storage.close();
      await drop();
    }
  });

  it("computes the thread lock's key as PostgreSQL computes it (earlier versions lock the same key)", async () => {
    const s = await storages.create();
    for (const threadId of [id(), "thread-é-😀", "a:b", ""]) {
      const [row] = (
        await s.pool.query("SELECT (('x' || substr(md5($1 || ':' || $2), 1, 16))::bit(64)::bigint)::text AS key", [s.schema, threadId])
      ).rows as Array<{ key: string }>;
      expect(threadLockKey(s.schema, threadId)).toBe(row!.key);
    }
  });

  it("round-trips NUL characters, lone surrogates and the escape character through every jsonb column", async () => {
    const s = await storages.create();
    const { assistant_id, thread_id } = await seed(s);
    const expected = toWireJson(awkward());
    const t = await s.threads.update(thread_id, { metadata: awkward(), values: awkward() });
    expect(t?.metadata).toEqual(expected);
    expect((await s.threads.get(thread_id))?.values).toEqual(expected);
    const run = await s.runs.create({ run_id: id(), thread_id, assistant_id, kwargs: { input: awkward() } });
    expect((await s.runs.get(run.run_id))?.kwargs.input).toEqual(expected);
    await s.runs.recordResult(run.run_id, { values: awkward() });
    expect((await s.runs.getResult(run.run_id))?.values).toEqual(expected);
    await s.store.put(["ns"], "k", awkward());
    expect((await s.store.get(["ns"], "k"))?.value).toEqual(expected);
    const event = await s.events.append(run.run_id, "values", awkward(), { ttlMs: 60_000 });
    expect(event.data).toEqual(expected);
    expect((await s.events.list(run.run_id))[0]?.data).toEqual(expected);
    // Searches encode their operands the same way.
    expect((await s.threads.search({ metadata: { nul: "a\u0000b" } })).map((x) => x.thread_id)).toEqual([thread_id]);
    expect((await s.threads.search({ filter: { nul: "a\u0000b" } })).map((x) => x.thread_id)).toEqual([thread_id]);
    expect((await s.store.search(["ns"], { filter: { nul: "a\u0000b" } })).length).toBe(1);
    expect((await s.store.search(["ns"], { filter: { nul: { $gt: "a" } } })).length).toBe(1);
  });

  it("a value that cannot be serialized writes nothing", async () => {
    const s = await storages.create();
    const { assistant_id, thread_id } = await seed(s);
    const run = await s.runs.create({ run_id: id(), thread_id, assistant_id });
    await expect(s.runs.recordResult(run.run_id, { values: { n: 1n } })).rejects.toThrow(WireSerializationError);
    expect(await s.runs.getResult(run.run_id)).toBeNull();
    await s.runs.recordResult(run.run_id, { values: { ok: 1 } });
    await s.runs.recordResult(run.run_id, { values: { ok: 2 } });
    expect(await s.runs.getResult(run.run_id)).toEqual({ values: { ok: 1 } });
    await expect(s.threads.update(thread_id, { values: { f: () => 1 } })).rejects.toThrow(WireSerializationError);
    expect((await s.threads.get(thread_id))?.values).toBeNull();
  });

  it("results survive a new pool and are never part of a Run", async () => {
    const s = await storages.create();
    const { assistant_id, thread_id } = await seed(s);
    const run = await s.runs.create({ run_id: id(), thread_id, assistant_id }, { internal: { captureResult: true } });
    await s.runs.recordResult(run.run_id, {
      values: { a: 1 },
      reply: "hi",
      checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id: "c1" },
    });
    const reopened = await storages.reopen(s);
    expect(await reopened.runs.getResult(run.run_id)).toEqual({
      values: { a: 1 },
      reply: "hi",
      checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id: "c1" },
    });
    expect(Object.keys((await reopened.runs.get(run.run_id))!).sort()).toEqual(
      [
        "assistant_id",
        "cancel_reason",
        "created_at",
        "kwargs",
        "metadata",
        "multitask_strategy",
        "run_id",
        "status",
        "thread_id",
        "updated_at",
      ].sort(),
    );
    expect(await reopened.runs.getInternal(run.run_id)).toEqual({ captureResult: true });
    await reopened.runs.recordResult("missing", { values: {} });
    expect(await reopened.runs.getResult("missing")).toBeNull();
  });

  it("results keep their written text (result_text); rows with only the jsonb (older writers) still read", async () => {
    const s = await storages.create();
    const { assistant_id, thread_id } = await seed(s);
    const table = `"${s.schema}".run_results`;
    const written = { values: { zeta: 1, a: { b: 1, a: 2 } }, reply: "hi" };
    const run = await s.runs.create({ run_id: id(), thread_id, assistant_id });
    await s.runs.recordResult(run.run_id, written);
    expect(JSON.stringify(await s.runs.getResult(run.run_id))).toBe(JSON.stringify(written));
    // The jsonb column holds the same value, for processes of the previous version during a rolling update.
    const [both] = (await s.pool.query(`SELECT result = result_text::jsonb AS same FROM ${table} WHERE run_id = $1`, [run.run_id])).rows;
    expect(both).toEqual({ same: true });

    // A row as written before migration 0009, or by a process of the previous version: jsonb only.
    const legacy = await s.runs.create({ run_id: id(), thread_id, assistant_id });
    await s.pool.query(`INSERT INTO ${table} (run_id, result, created_at) VALUES ($1, $2::jsonb, now())`, [
      legacy.run_id,
      JSON.stringify(written),
    ]);
    const read = await s.runs.getResult(legacy.run_id);
    expect(read).toEqual(written);
    // In jsonb's order: what that row has always read as, so earlier answers stay as they were.
    expect(JSON.stringify(read)).toBe(JSON.stringify({ reply: "hi", values: { a: { a: 2, b: 1 }, zeta: 1 } }));
    const copyId = id();
    await s.threads.copy(thread_id, copyId);
    const copies = await s.runs.search({ thread_id: copyId, limit: 10 });
    const copiedResults = await Promise.all(copies.map((c) => s.runs.getResult(c.run_id).then((r) => JSON.stringify(r))));
    expect(copiedResults.sort()).toEqual([JSON.stringify(read), JSON.stringify(written)].sort());
  });

  it("orders runs newest first within one millisecond", async () => {
    const s = await storages.create();
    const { assistant_id, thread_id } = await seed(s);
    const created_at = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await s.runs.create({ run_id: id(), thread_id, assistant_id, created_at, status: "success" })).run_id);
    expect((await s.runs.search({ thread_id })).map((r) => r.run_id)).toEqual(ids.reverse());
  });

  it("rejectIfThreadActive is atomic across pools", async () => {
    const s = await storages.create();
    const other = await storages.sibling(s);
    const { assistant_id, thread_id } = await seed(s);
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? other : s).runs.create({ run_id: id(), thread_id, assistant_id }, { rejectIfThreadActive: true }),
      ),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    for (const a of attempts) if (a.status === "rejected") expect(a.reason).toBeInstanceOf(ConflictError);
  });

  it("claimNext across pools: no run twice, never two running runs on one thread", async () => {
    const s = await storages.create();
    const other = await storages.sibling(s);
    const assistant = await s.assistants.create({ assistant_id: id(), graph_id: "agent" });
    const threads = await Promise.all([1, 2, 3].map(() => s.threads.create({ thread_id: id() })));
    for (const t of threads) {
      for (let i = 0; i < 3; i++) await s.runs.create({ run_id: id(), thread_id: t.thread_id, assistant_id: assistant.assistant_id });
    }
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? other : s).runs.claimNext({ owner: `w${i}`, leaseMs: 60_000 })),
    );
    const got = claims.filter((c) => c !== null);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((c) => c.run.thread_id)).size).toBe(3);
    expect(got.every((c) => c.attempt === 1 && c.run.status === "running")).toBe(true);
    // The oldest run of each thread went first.
    for (const c of got) {
      const runs = await s.runs.search({ thread_id: c.run.thread_id });
      expect(c.run.run_id).toBe(runs[runs.length - 1]!.run_id);
    }
    expect(
      await s.runs.renewLeases(
        got.map((c) => c.run.run_id),
        "nobody",
        1000,
      ),
    ).toBe(0);
    expect(await s.runs.listExpiredLeases(new Date(Date.now() + 120_000).toISOString(), 10)).toHaveLength(3);
  });

  it("rollback deletes exactly the run's checkpoints written by a real graph (metadata.run_id)", async () => {
    const s = await storages.create();
    const { assistant_id, thread_id } = await seed(s);
    const State = Annotation.Root({ n: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
    const graph = new StateGraph(State)
      .addNode("inc", () => ({ n: 1 }))
      .addEdge(START, "inc")
      .addEdge("inc", END)
      .compile({ checkpointer: s.checkpointer });
    const r1 = await s.runs.create({ run_id: id(), thread_id, assistant_id });
    await graph.invoke({ n: 0 }, { configurable: { thread_id, run_id: r1.run_id } });
    const r2 = await s.runs.create({ run_id: id(), thread_id, assistant_id });
    await graph.invoke({ n: 0 }, { configurable: { thread_id, run_id: r2.run_id } });
    expect((await graph.getState({ configurable: { thread_id } })).values).toEqual({ n: 2 });
    await s.runs.delete(r2.run_id, { checkpoints: true });
    expect((await graph.getState({ configurable: { thread_id } })).values).toEqual({ n: 1 });
    const copy = await s.threads.copy(thread_id, id());
    expect((await graph.getState({ configurable: { thread_id: copy!.thread_id } })).values).toEqual({ n: 1 });
    expect(await s.threads.prune([thread_id, "unknown"], "keep_latest")).toBe(1);
    expect((await graph.getState({ configurable: { thread_id } })).values).toEqual({ n: 1 });
    let count = 0;
    for await (const _ of s.checkpointer.list({ configurable: { thread_id, checkpoint_ns: "" } })) count += 1;
    expect(count).toBe(1);
  });

  it("store: prefix search, filters, namespaces", async () => {
    const s = await storages.create();
    await s.store.put(["a", "b"], "1", { score: 5, kind: "x" });
    await s.store.put(["a", "b", "c"], "2", { score: 7, kind: "y" });
    await s.store.put(["a", "bb"], "3", { score: 9, kind: "x" });
    await s.store.put(["z"], "4", { score: 1 });
    expect((await s.store.search(["a", "b"])).map((i) => i.key).sort()).toEqual(["1", "2"]);
    expect((await s.store.search([], { filter: { score: { $gte: 5, $lt: 9 } } })).map((i) => i.key).sort()).toEqual(["1", "2"]);
    expect((await s.store.search([], { filter: { kind: { $ne: "x" } } })).map((i) => i.key).sort()).toEqual(["2", "4"]);
    expect(await s.store.listNamespaces()).toEqual([["a", "b"], ["a", "b", "c"], ["a", "bb"], ["z"]]);
    expect(await s.store.listNamespaces({ prefix: ["a", "*"], maxDepth: 2 })).toEqual([
      ["a", "b"],
      ["a", "bb"],
    ]);
    expect(await s.store.listNamespaces({ suffix: ["c"] })).toEqual([["a", "b", "c"]]);
  });

  it("auth filters: implicit equality, $eq, $contains", async () => {
    const s = await storages.create();
    await s.threads.create({ thread_id: "t-alice", metadata: { owner: "alice", tags: ["a", { o: 1 }] } });
    await s.threads.create({ thread_id: "t-bob", metadata: { owner: "bob", tags: [{ o: 1, p: 2 }] } });
    const ids = async (filter: Record<string, unknown>) => (await s.threads.search({ filter })).map((t) => t.thread_id).sort();
    expect(await ids({ owner: "alice" })).toEqual(["t-alice"]);
    expect(await ids({ owner: { $eq: "bob" } })).toEqual(["t-bob"]);
    expect(await ids({ tags: { $contains: "a" } })).toEqual(["t-alice"]);
    expect(await ids({ tags: { $contains: { o: 1 } } })).toEqual(["t-alice"]);
    expect(await s.threads.count({ filter: { owner: "carol" } })).toBe(0);
  });
});
