import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, WAL_AUTOCHECKPOINT_PAGES } from "./db.js";
import { applyMigrations, MIGRATIONS } from "./migrations.js";
import { openSqliteStorage } from "./storage.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function versions(path: string): { version: number; name: string; applied_at: string }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").all() as never;
  } finally {
    db.close();
  }
}

describe("migrations", () => {
  it("versions are unique and ascending", () => {
    const list = MIGRATIONS.map((m) => m.version);
    expect(list).toEqual([...new Set(list)].sort((a, b) => a - b));
    expect(list[0]).toBe(1);
  });

  it("a new file gets every migration once; reopening applies nothing again", async () => {
    const path = tmp.file();
    const s1 = await openSqliteStorage({ path });
    await s1.close();
    const first = versions(path);
    expect(first.map((r) => [r.version, r.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));

    const s2 = await openSqliteStorage({ path });
    expect(applyMigrations(s2.db)).toEqual([]);
    await s2.close();
    expect(versions(path)).toEqual(first); // same rows, same applied_at
  });

  it("a database created by migration 1 only is upgraded in place, keeping its data", async () => {
    const path = tmp.file();
    const db = openDatabase(path);
    expect(applyMigrations(db, MIGRATIONS.slice(0, 1))).toEqual([1]);
    db.prepare(
      `INSERT INTO threads (thread_id, created_at, updated_at, metadata, config, status, interrupts)
       VALUES ('t-old', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', '{"v":1}', '{}', 'idle', '{}')`,
    ).run();
    db.prepare(
      `INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy)
       VALUES ('r-old', 't-old', 'a', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', 'success', '{}', '{}', 'reject')`,
    ).run();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'run_results'").get()).toBeUndefined();
    db.close();

    const s = await openSqliteStorage({ path });
    expect(versions(path).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await s.threads.get("t-old")).toMatchObject({ thread_id: "t-old", metadata: { v: 1 }, values: null });
    expect(await s.runs.get("r-old")).toMatchObject({ run_id: "r-old", status: "success" });
    expect(await s.runs.getResult("r-old")).toBeNull();
    await s.runs.recordResult("r-old", { values: { upgraded: true } });
    expect(await s.runs.getResult("r-old")).toEqual({ values: { upgraded: true } });
    // A run from before run errors were stored has none; the added column takes one.
    expect(await s.runs.getError("r-old")).toBeNull();
    await s.runs.transition("r-old", "error", { error: { error: "ValueError", message: "upgraded" } });
    expect(await s.runs.getError("r-old")).toEqual({ error: "ValueError", message: "upgraded" });
    await s.close();
  });

  it("a database from before the task lineage columns is upgraded: its existing runs are indexed from their internals", async () => {
    const path = tmp.file();
    const db = openDatabase(path);
    expect(
      applyMigrations(
        db,
        MIGRATIONS.filter((m) => m.version <= 3),
      ),
    ).toEqual([1, 2, 3]);
    db.prepare(
      `INSERT INTO threads (thread_id, created_at, updated_at, metadata, config, status, interrupts)
       VALUES ('t-old', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', '{}', '{}', 'idle', '{}')`,
    ).run();
    const insertRun = db.prepare(
      `INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, internal)
       VALUES (?, 't-old', 'a', ?, ?, 'success', '{}', '{}', 'reject', ?)`,
    );
    const at = (s: number) => `2024-01-01T00:00:0${s}.000Z`;
    insertRun.run("root-1", at(1), at(1), '{"captureResult":true}');
    insertRun.run("cont-1", at(2), at(2), '{"captureResult":true,"taskId":"root-1"}');
    insertRun.run("cont-2", at(3), at(3), '{"taskId":"root-1"}');
    insertRun.run("root-2", at(4), at(4), '{"captureResult":true}');
    insertRun.run("plain", at(5), at(5), null);
    insertRun.run("uncaptured", at(6), at(6), "{}");
    db.close();

    const s = await openSqliteStorage({ path });
    expect(versions(path).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect((await s.runs.searchTaskRoots({ assistant_id: "a" })).map((r) => r.run_id)).toEqual(["root-2", "root-1"]);
    expect((await s.runs.latestContinuation("root-1"))?.run_id).toBe("cont-2");
    expect(await s.runs.latestContinuation("root-2")).toBeNull();
    expect(
      await s.pushConfigs.put({ run_id: "root-1", config_id: "c", url: "http://x", token: null, authentication: null }),
    ).not.toBeNull();
    await s.close();
  });

  it("sets the connection PRAGMAs", async () => {
    const s = await openSqliteStorage({ path: tmp.file() });
    expect(s.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(s.db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(s.db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
    expect(s.db.pragma("busy_timeout", { simple: true })).toBeGreaterThan(0);
    expect(s.db.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    await s.close();
  });

  it("two processes' worth of connections opening a new file concurrently apply migrations once", async () => {
    const path = tmp.file();
    const opened = await Promise.all([openSqliteStorage({ path }), openSqliteStorage({ path })]);
    for (const s of opened) await s.close();
    expect(versions(path).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });
});
