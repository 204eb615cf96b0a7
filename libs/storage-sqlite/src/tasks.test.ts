import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { LATEST_CONTINUATION_SQL, LIST_CONTINUATIONS_SQL, TASK_ROOTS_OF_THREAD_SQL, TASK_ROOTS_SQL } from "./runs.js";
import { openSqliteStorage } from "./storage.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function plan(db: import("./db.js").Db, sql: string): string[] {
  const params = Array((sql.match(/\?/g) ?? []).length).fill("x");
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
}

describe("A2A task lineage queries", () => {
  it("are served by their indexes, in index order (no scan, no sort), also with planner statistics", async () => {
    const s = await openSqliteStorage({ path: tmp.file() });
    try {
      // Many unrelated runs (one assistant, one thread), a few roots and continuations, then ANALYZE so the
      // planner decides with real statistics.
      await s.threads.create({ thread_id: "t" });
      const continuations: string[] = [];
      for (let i = 0; i < 2000; i++) {
        const internal = i % 100 === 0 ? { captureResult: true } : i % 100 === 1 ? { captureResult: true, taskId: "root" } : undefined;
        const run = await s.runs.create({ run_id: randomUUID(), thread_id: "t", assistant_id: "a" }, { internal });
        if (internal?.taskId) continuations.push(run.run_id);
      }
      s.db.exec("ANALYZE");
      const expected = [
        [TASK_ROOTS_SQL, ["SEARCH runs USING INDEX runs_task_roots (assistant_id=?)"]],
        [TASK_ROOTS_OF_THREAD_SQL, ["SEARCH runs USING INDEX runs_thread_created (thread_id=?)"]],
        [LATEST_CONTINUATION_SQL, ["SEARCH runs USING INDEX runs_task_continuations (task_id=?)"]],
        // Oldest first: the same index walked forwards (no "USE TEMP B-TREE FOR ORDER BY").
        [LIST_CONTINUATIONS_SQL, ["SEARCH runs USING INDEX runs_task_continuations (task_id=?)"]],
      ] as const;
      for (const [sql, lines] of expected) {
        expect(plan(s.db, sql)).toEqual(lines);
        // Without the INDEXED BY hint the planner picks the same index on its own; for a context's roots it
        // would walk all of the assistant's roots instead of the context's runs, hence the hint.
        if (sql !== TASK_ROOTS_OF_THREAD_SQL) expect(plan(s.db, sql.replace(/INDEXED BY \w+/, ""))).toEqual(lines);
      }
      expect(await s.runs.searchTaskRoots({ assistant_id: "a", limit: 100 })).toHaveLength(20);
      expect(await s.runs.searchTaskRoots({ assistant_id: "a", thread_id: "t", limit: 5 })).toHaveLength(5);
      expect(await s.runs.latestContinuation("root")).not.toBeNull();
      expect((await s.runs.listContinuations("root")).map((r) => r.run_id)).toEqual(continuations);
      expect((await s.runs.listContinuations("root", { limit: 5 })).map((r) => r.run_id)).toEqual(continuations.slice(0, 5));
      // The indexes hold only the matching runs.
      const count = (index: string) =>
        (
          s.db
            .prepare(
              `SELECT count(*) AS n FROM runs INDEXED BY ${index} WHERE ${index === "runs_task_continuations" ? "task_id IS NOT NULL" : "task_root = 1"}`,
            )
            .get() as { n: number }
        ).n;
      expect([count("runs_task_roots"), count("runs_task_continuations")]).toEqual([20, 20]);
    } finally {
      await s.close();
    }
  });
});
