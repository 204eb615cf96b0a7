import { StatementCounter } from "@agent-server/testing";
import { afterAll, describe, expect, it } from "vitest";
import { TestStorages } from "../test/storages.js";

const storages = new TestStorages();
afterAll(() => storages.cleanup());

describe("active-run lookups (migration 0012)", () => {
  it("the claim, the pending count, the lease walks and the search by active status read runs_active_idx, not the table", async () => {
    const s = await storages.create();
    await s.threads.create({ thread_id: "t" });
    const runs = `"${s.schema}".runs`;
    // 20 000 finished runs, three pending and two running with leases, then ANALYZE.
    await s.pool.query(
      `INSERT INTO ${runs} (run_id, thread_id, assistant_id, status, multitask_strategy, created_at, updated_at, lease_owner, lease_expires_at)
       SELECT 'bulk-' || i, 't', 'a',
              CASE WHEN i <= 3 THEN 'pending' WHEN i <= 5 THEN 'running' ELSE 'success' END, 'enqueue',
              now() - i * interval '1 second', now(),
              CASE WHEN i BETWEEN 4 AND 5 THEN 'owner' END, CASE WHEN i BETWEEN 4 AND 5 THEN now() - interval '1 minute' END
         FROM generate_series(1, 20000) AS i`,
    );
    await s.pool.query(`ANALYZE ${runs}`);
    const counter = new StatementCounter(s);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["countPending", async () => expect(await s.runs.countPending()).toBe(3)],
      ["listExpiredLeases", async () => expect(await s.runs.listExpiredLeases(new Date().toISOString(), 10)).toHaveLength(2)],
      ["listLeases", async () => expect(await s.runs.listLeases(10)).toHaveLength(2)],
      ["search", async () => expect(await s.runs.search({ status: ["pending", "running"], limit: 10 })).toHaveLength(5)],
    ];
    try {
      for (const [name, call] of calls) {
        const { statements } = await counter.count(call);
        expect(statements, name).toHaveLength(1);
        // The plan a named statement settles on after its first executions: the generic one.
        const plan = (await s.pool.query(`EXPLAIN (GENERIC_PLAN, COSTS OFF) ${statements[0]}`)).rows.map(
          (r: Record<string, string>) => r["QUERY PLAN"],
        );
        const text = plan.join("\n");
        expect(text, `${name}:\n${text}`).toMatch(/Index (Only )?Scan using runs_active_idx/);
        expect(text, `${name}:\n${text}`).not.toMatch(/Seq Scan/);
      }
    } finally {
      counter.uninstall();
    }
  });
});

describe("thread status lookups (migration 0013)", () => {
  it("a search by a status other than idle reads threads_status_idx, which holds no idle thread", async () => {
    const s = await storages.create();
    const threads = `"${s.schema}".threads`;
    // 20 000 idle threads and three busy ones, then ANALYZE.
    await s.pool.query(
      `INSERT INTO ${threads} (thread_id, status, created_at, updated_at)
       SELECT 'bulk-' || i, CASE WHEN i <= 3 THEN 'busy' ELSE 'idle' END, now() - i * interval '1 second', now()
         FROM generate_series(1, 20000) AS i`,
    );
    await s.pool.query(`ANALYZE ${threads}`);
    const entries = await s.pool.query(`SELECT count(*)::int AS n FROM ${threads} WHERE status <> 'idle'`);
    expect(entries.rows[0].n).toBe(3);
    const counter = new StatementCounter(s);
    try {
      const { statements } = await counter.count(async () => expect(await s.threads.search({ status: "busy", limit: 10 })).toHaveLength(3));
      expect(statements).toHaveLength(1);
      const plan = (await s.pool.query(`EXPLAIN (GENERIC_PLAN, COSTS OFF) ${statements[0]}`)).rows.map(
        (r: Record<string, string>) => r["QUERY PLAN"],
      );
      const text = plan.join("\n");
      expect(text).toMatch(/Index (Only )?Scan using threads_status_idx/);
      expect(text).not.toMatch(/Seq Scan/);
      const idle = await s.threads.search({ status: "idle", limit: 5 });
      expect(idle.map((thread) => thread.status)).toEqual(["idle", "idle", "idle", "idle", "idle"]);
      expect(await s.threads.count({ status: "busy" })).toBe(3);
    } finally {
      counter.uninstall();
    }
  });
});
