import { randomUUID } from "node:crypto";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { WireSerializationError, type Storage } from "@agent-server/core";
import { ACTIVE_RUNS, NOT_IDLE } from "./migrations.js";
import { eraseRunsSql } from "./runs.js";
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

async function threadWithRun(s: Storage) {
  const thread_id = randomUUID();
  await s.threads.create({ thread_id });
  const run = await s.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "a" });
  return { thread_id, run };
}

const State = Annotation.Root({ log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });
function graph(s: Storage) {
  const child = new StateGraph(State)
    .addNode("inner", () => ({ log: ["inner"] }))
    .addEdge(START, "inner")
    .addEdge("inner", END)
    .compile();
  return new StateGraph(State)
    .addNode("step", () => ({ log: ["step"] }))
    .addNode("child", child)
    .addEdge(START, "step")
    .addEdge("step", "child")
    .addEdge("child", END)
    .compile({ checkpointer: s.checkpointer });
}
const runGraph = (s: Storage, thread_id: string, run_id: string) =>
  graph(s).invoke({ log: [run_id] }, { configurable: { thread_id, run_id } });

function checkpointRows(s: SqliteStorage, threadId: string) {
  return s.db
    .prepare(
      `SELECT checkpoint_ns, checkpoint_id, json_extract(CAST(metadata AS TEXT), '$.run_id') AS run_id,
         json_extract(CAST(metadata AS TEXT), '$.thread_id') AS meta_thread
       FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id`,
    )
    .all(threadId) as { checkpoint_ns: string; checkpoint_id: string; run_id: string | null; meta_thread: string | null }[];
}

describe("results on a real file", () => {
  it("survive close and reopen; first write wins; unknown run is a no-op", async () => {
    const path = tmp.file();
    const s1 = await openSqliteStorage({ path });
    const { thread_id, run } = await threadWithRun(s1);
    await s1.runs.recordResult(run.run_id, { values: { n: 1, when: new Date("2024-01-01T00:00:00.000Z") }, reply: "first" });
    await s1.runs.recordResult(run.run_id, { values: { n: 2 }, reply: "second" });
    await s1.runs.recordResult("no-such-run", { values: {} });
    await s1.close();

    const s2 = await open(path);
    expect(await s2.runs.getResult(run.run_id)).toEqual({ values: { n: 1, when: "2024-01-01T00:00:00.000Z" }, reply: "first" });
    expect(await s2.runs.getResult("no-such-run")).toBeNull();
    expect(Object.keys((await s2.runs.get(run.run_id))!).sort()).not.toContain("result");
    await s2.threads.delete(thread_id);
    expect(await s2.runs.getResult(run.run_id)).toBeNull();
    expect(s2.db.prepare("SELECT COUNT(*) AS n FROM run_results").get()).toEqual({ n: 0 });
  });

  it("a value that cannot be serialized stores nothing", async () => {
    const s = await open();
    const { run } = await threadWithRun(s);
    await expect(s.runs.recordResult(run.run_id, { values: { bad: 1n } })).rejects.toBeInstanceOf(WireSerializationError);
    expect(await s.runs.getResult(run.run_id)).toBeNull();
    await s.runs.recordResult(run.run_id, { values: { ok: true } });
    expect(await s.runs.getResult(run.run_id)).toEqual({ values: { ok: true } });
  });
});

describe("checkpoints in the same file", () => {
  it("the saver records the run id of every checkpoint, in every namespace", async () => {
    const s = await open();
    const thread_id = randomUUID();
    await runGraph(s, thread_id, "run-1");
    const rows = checkpointRows(s, thread_id);
    expect(rows.length).toBeGreaterThan(2);
    expect(rows.some((r) => r.checkpoint_ns !== "")).toBe(true);
    expect(rows.every((r) => r.run_id === "run-1")).toBe(true);
  });

  it("list filters on a metadata key holding NUL (which SQLite JSON paths cannot name), with the limit kept", async () => {
    const s = await open();
    const thread_id = randomUUID();
    await graph(s).invoke({ log: ["x"] }, { configurable: { thread_id, run_id: "r" }, metadata: { "nul\u0000k": "v", other: 1 } });
    const listed = async (filter: Record<string, unknown>, limit?: number) => {
      const tuples = [];
      for await (const tuple of s.checkpointer.list({ configurable: { thread_id } }, { filter, limit })) tuples.push(tuple);
      return tuples;
    };
    const all = await listed({});
    expect(all.length).toBeGreaterThan(1);
    expect(await listed({ "nul\u0000k": "v" })).toHaveLength(all.length);
    expect(await listed({ "nul\u0000k": "v", other: 1 }, 1)).toHaveLength(1);
    expect(await listed({ "nul\u0000k": "w" })).toHaveLength(0);
  });

  it("rollback delete removes the run's checkpoints and writes only", async () => {
    const s = await open();
    const thread_id = randomUUID();
    await s.threads.create({ thread_id });
    const r1 = await s.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "a" });
    const r2 = await s.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "a" });
    await runGraph(s, thread_id, r1.run_id);
    const afterFirst = checkpointRows(s, thread_id);
    const stateAfterFirst = (await graph(s).getState({ configurable: { thread_id } })).values;
    await runGraph(s, thread_id, r2.run_id);
    expect(await s.runs.delete(r2.run_id, { checkpoints: true })).toBe(true);
    expect(checkpointRows(s, thread_id)).toEqual(afterFirst);
    const orphanWrites = s.db
      .prepare(
        `SELECT COUNT(*) AS n FROM writes w WHERE thread_id = ? AND NOT EXISTS (SELECT 1 FROM checkpoints c
           WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`,
      )
      .get(thread_id) as { n: number };
    expect(orphanWrites.n).toBe(0);
    const state = await graph(s).getState({ configurable: { thread_id } });
    expect(state.values).toEqual(stateAfterFirst);
  });

  it("copy duplicates checkpoints, writes, runs and results under new ids", async () => {
    const s = await open();
    const thread_id = randomUUID();
    await s.threads.create({ thread_id, metadata: { k: "v" } });
    const run = await s.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "a" }, { internal: { captureResult: true } });
    const cont = await s.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "a" }, { internal: { taskId: run.run_id } });
    await runGraph(s, thread_id, run.run_id);
    await s.runs.recordResult(run.run_id, { values: { a: 1 }, checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id: "c1" } });

    const copyId = randomUUID();
    const copy = await s.threads.copy(thread_id, copyId);
    expect(copy).toMatchObject({ thread_id: copyId, metadata: { k: "v" } });
    const copiedRuns = await s.runs.search({ thread_id: copyId });
    expect(copiedRuns).toHaveLength(2);
    const [newCont, newRun] = copiedRuns; // newest first
    expect(newRun!.run_id).not.toBe(run.run_id);
    expect(await s.runs.getInternal(newCont!.run_id)).toEqual({ taskId: newRun!.run_id });
    expect(await s.runs.getResult(newRun!.run_id)).toEqual({
      values: { a: 1 },
      checkpoint: { thread_id: copyId, checkpoint_ns: "", checkpoint_id: "c1" },
    });
    expect(await s.runs.getResult(run.run_id)).toMatchObject({ checkpoint: { thread_id } });
    const source = checkpointRows(s, thread_id);
    const copied = checkpointRows(s, copyId);
    expect(copied.map((r) => [r.checkpoint_ns, r.checkpoint_id])).toEqual(source.map((r) => [r.checkpoint_ns, r.checkpoint_id]));
    expect(copied.every((r) => r.run_id === run.run_id)).toBe(true); // the run that wrote them, as upstream
    const state = await graph(s).getState({ configurable: { thread_id: copyId } });
    expect(state.values).toEqual((await graph(s).getState({ configurable: { thread_id } })).values);
    expect(state.values.log[0]).toBe(run.run_id);
    void cont;
  });

  it("prune keep_latest keeps one checkpoint per namespace, and the state; delete removes everything", async () => {
    const s = await open();
    const thread_id = randomUUID();
    await s.threads.create({ thread_id });
    const run = await s.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "a" });
    await runGraph(s, thread_id, run.run_id);
    await runGraph(s, thread_id, "second");
    await s.runs.recordResult(run.run_id, { values: { kept: true } });
    const before = await graph(s).getState({ configurable: { thread_id } });
    expect(await s.threads.prune([thread_id, "unknown"], "keep_latest")).toBe(1);
    const rows = checkpointRows(s, thread_id);
    expect(new Set(rows.map((r) => r.checkpoint_ns)).size).toBe(rows.length);
    expect((await graph(s).getState({ configurable: { thread_id } })).values).toEqual(before.values);
    expect(await s.runs.getResult(run.run_id)).toEqual({ values: { kept: true } });

    expect(await s.threads.prune([thread_id], "delete")).toBe(1);
    expect(await s.threads.get(thread_id)).toBeNull();
    expect(checkpointRows(s, thread_id)).toEqual([]);
    expect(await s.runs.get(run.run_id)).toBeNull();
  });
});

describe("two connections to one file", () => {
  it("claimNext never hands the same run to both, and honours one running run per thread", async () => {
    const path = tmp.file();
    const a = await open(path);
    const b = await open(path);
    const threads: string[] = [];
    for (let t = 0; t < 10; t++) {
      const thread_id = randomUUID();
      threads.push(thread_id);
      await a.threads.create({ thread_id });
      for (let r = 0; r < 3; r++) await a.runs.create({ run_id: randomUUID(), thread_id, assistant_id: "x" });
    }
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).runs.claimNext({ owner: `w${i}`, leaseMs: 60_000 })),
    );
    const claimed = claims.filter((c) => c !== null);
    expect(claimed).toHaveLength(10); // one per thread
    expect(new Set(claimed.map((c) => c!.run.run_id)).size).toBe(10);
    expect(new Set(claimed.map((c) => c!.run.thread_id)).size).toBe(10);
    expect(claimed.every((c) => c!.attempt === 1 && c!.run.status === "running")).toBe(true);
  });

  it("rejectIfThreadActive admits exactly one run across connections", async () => {
    const path = tmp.file();
    const a = await open(path);
    const b = await open(path);
    const thread_id = randomUUID();
    await a.threads.create({ thread_id });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? a : b).runs.create({ run_id: randomUUID(), thread_id, assistant_id: "x" }, { rejectIfThreadActive: true }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("query plans", () => {
  it("lookups by id, thread, claim order, lease, result, events, deliveries and crons use indexes", async () => {
    const s = await open();
    const plan = (sql: string) =>
      (s.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(" | ");
    const noScan = (sql: string, table: string) => expect(plan(sql)).not.toMatch(new RegExp(`SCAN ${table}\\b(?! USING)`));
    noScan("SELECT * FROM runs WHERE run_id = 'x'", "runs");
    noScan("SELECT * FROM runs WHERE thread_id = 'x' ORDER BY created_at DESC, seq DESC LIMIT 10", "runs");
    noScan(
      `SELECT r.run_id FROM runs r WHERE r.status = 'pending' AND r.${ACTIVE_RUNS} AND r.created_at <= 'z'
       AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.thread_id = r.thread_id AND x.status = 'running')
       ORDER BY r.created_at, r.seq LIMIT 1`,
      "(r|x)",
    );
    noScan(`SELECT * FROM runs WHERE status = 'running' AND ${ACTIVE_RUNS} AND lease_expires_at < 'z' ORDER BY lease_expires_at`, "runs");
    noScan(`SELECT count(*) FROM runs WHERE status = 'pending' AND ${ACTIVE_RUNS}`, "runs");
    noScan(
      `SELECT * FROM runs WHERE status IN (SELECT value FROM json_each('["running"]')) AND ${ACTIVE_RUNS} ORDER BY created_at DESC, seq DESC LIMIT 10`,
      "runs",
    );
    noScan("SELECT result FROM run_results WHERE run_id = 'x'", "run_results");
    noScan("SELECT * FROM events WHERE run_id = 'x' AND event_id > 3 ORDER BY event_id", "events");
    noScan("DELETE FROM events WHERE expires_at < 'z'", "events");
    noScan("SELECT * FROM deliveries WHERE status = 'pending' AND next_attempt_at <= 'z' ORDER BY next_attempt_at, seq", "deliveries");
    // Erasing runs (core's run cascade) reaches each table by the run, never by a scan or a status walk.
    for (const column of ["run_id", "thread_id"] as const) {
      for (const sql of eraseRunsSql(column)) {
        const target = plan(sql.replace("?", "'x'")).split(" | ")[0];
        expect(target).toMatch(/^SEARCH \w+ USING (COVERING )?INDEX \w+ \((run_id|thread_id)=\?\)/);
      }
    }
    noScan("SELECT * FROM crons WHERE enabled = 1 AND next_run_date IS NOT NULL AND next_run_date <= 'z' ORDER BY next_run_date", "crons");
    noScan("SELECT * FROM store_items WHERE namespace = 'a' OR (namespace >= 'a.' AND namespace < 'a/')", "store_items");
    noScan("SELECT * FROM threads ORDER BY created_at DESC, seq DESC LIMIT 10", "threads");
    // A status other than idle through the partial index of the threads that are not idle.
    expect(plan(`SELECT * FROM threads WHERE status = 'busy' AND ${NOT_IDLE} ORDER BY created_at DESC LIMIT 10`)).toMatch(
      /SEARCH threads USING INDEX threads_status \(status=\?\)/,
    );
    noScan("SELECT * FROM assistants ORDER BY created_at DESC, seq DESC LIMIT 10", "assistants");
    noScan(
      `DELETE FROM checkpoints WHERE thread_id = 't' AND (CASE WHEN json_valid(CAST(metadata AS TEXT)) THEN json_extract(CAST(metadata AS TEXT), '$.run_id') END) = 'r'`,
      "checkpoints",
    );
  });
});
