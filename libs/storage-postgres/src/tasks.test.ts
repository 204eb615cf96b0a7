import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrations } from "./migrate.js";
import { MIGRATIONS } from "./migrations.generated.js";
import { taskSql } from "./runs.js";
import { openPostgresStorage } from "./storage.js";
import { TestStorages } from "../test/storages.js";

const storages = new TestStorages();
const schemas: TestSchema[] = [];
afterAll(async () => {
  await storages.cleanup();
  await Promise.allSettled(schemas.map((s) => s.drop()));
});

describe("A2A task lineage queries", () => {
  it("are served by their partial indexes in index order (no Seq Scan, no Sort) among many unrelated runs", async () => {
    const s = await storages.create();
    await s.threads.create({ thread_id: "t" });
    const runs = `"${s.schema}".runs`;
    // 20 000 unrelated runs of the same assistant and thread, a few roots and continuations, then ANALYZE.
    await s.pool.query(
      `INSERT INTO ${runs} (run_id, thread_id, assistant_id, status, multitask_strategy, internal, created_at, updated_at)
       SELECT 'bulk-' || i, 't', 'a', 'success', 'reject',
              CASE WHEN i % 1000 = 0 THEN '{"captureResult":true}'::jsonb
                   WHEN i % 1000 = 1 THEN '{"captureResult":true,"taskId":"root"}'::jsonb
                   ELSE '{}'::jsonb END,
              now() - i * interval '1 second', now()
         FROM generate_series(1, 20000) AS i`,
    );
    await s.pool.query(`ANALYZE ${runs}`);
    const sql = taskSql(runs);
    const plan = async (text: string, values: unknown[]) =>
      (await s.pool.query(`EXPLAIN (COSTS OFF) ${text}`, values)).rows.map((r: Record<string, string>) => r["QUERY PLAN"]!);
    const cases: Array<[string, unknown[], string]> = [
      [sql.roots, ["a", 10, 0], "Index Scan using runs_task_roots_idx"],
      // A context's roots: the assistant's roots or the thread's runs, whichever is smaller (here the first).
      [sql.rootsOfThread, ["a", 10, 0, "t"], "Index Scan using (runs_task_roots_idx|runs_thread_created_idx)"],
      [sql.latestContinuation, ["root"], "Index Scan using runs_task_continuations_idx"],
      // Oldest first: the same (DESC) index read backwards.
      [sql.listContinuations, ["root", 100], "Index Scan Backward using runs_task_continuations_idx"],
    ];
    for (const [text, values, scan] of cases) {
      const lines = await plan(text, values);
      const joined = lines.join("\n");
      expect(joined, joined).toMatch(new RegExp(`${scan} on runs`));
      expect(joined, joined).not.toMatch(/Seq Scan|Sort/);
    }
    expect(await s.runs.searchTaskRoots({ assistant_id: "a", limit: 100 })).toHaveLength(20);
    expect((await s.runs.searchTaskRoots({ assistant_id: "a", thread_id: "t", limit: 2, offset: 1 })).map((r) => r.run_id)).toEqual([
      "bulk-2000",
      "bulk-3000",
    ]);
    expect((await s.runs.latestContinuation("root"))?.run_id).toBe("bulk-1");
    const continuations = await s.runs.listContinuations("root");
    expect(continuations.map((r) => r.run_id)).toEqual(Array.from({ length: 20 }, (_, k) => `bulk-${19001 - k * 1000}`));
    expect((await s.runs.listContinuations("root", { limit: 2 })).map((r) => r.run_id)).toEqual(["bulk-19001", "bulk-18001"]);
  });

  it("a schema from before migration 0002 is upgraded: existing runs get their lineage from their internals", async () => {
    const schema = await createTestSchema("lineage");
    schemas.push(schema);
    const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
    try {
      expect(await applyMigrations(pool, schema.schema, MIGRATIONS.slice(0, 1))).toEqual(["0001"]);
      const q = `"${schema.schema}"`;
      await pool.query(`INSERT INTO ${q}.threads (thread_id, created_at, updated_at) VALUES ('t-old', now(), now())`);
      const insert = (id: string, seconds: number, internal: string) =>
        pool.query(
          `INSERT INTO ${q}.runs (run_id, thread_id, assistant_id, status, multitask_strategy, internal, created_at, updated_at)
           VALUES ($1, 't-old', 'a', 'success', 'reject', $2::jsonb, '2024-01-01T00:00:00Z'::timestamptz + $3 * interval '1 second', now())`,
          [id, internal, seconds],
        );
      await insert("root-1", 1, '{"captureResult":true}');
      await insert("cont-1", 2, '{"captureResult":true,"taskId":"root-1"}');
      await insert("cont-2", 3, '{"taskId":"root-1"}');
      await insert("root-2", 4, '{"captureResult":true}');
      await insert("uncaptured", 5, '{"captureResult":false}');
      await insert("plain", 6, "{}");
    } finally {
      await pool.end();
    }
    const s = await openPostgresStorage({ connectionString: schema.url, schema: schema.schema });
    try {
      expect((await s.runs.searchTaskRoots({ assistant_id: "a" })).map((r) => r.run_id)).toEqual(["root-2", "root-1"]);
      expect((await s.runs.latestContinuation("root-1"))?.run_id).toBe("cont-2");
      expect(await s.runs.latestContinuation("root-2")).toBeNull();
      expect((await s.runs.listContinuations("root-1")).map((r) => r.run_id)).toEqual(["cont-1", "cont-2"]);
      expect(await s.runs.listContinuations("root-2")).toEqual([]);
      expect(
        await s.pushConfigs.put({ run_id: "root-1", config_id: "c", url: "http://x", token: null, authentication: null }),
      ).not.toBeNull();
      await s.truncate({ runs: true });
      expect(await s.pushConfigs.list("root-1")).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
