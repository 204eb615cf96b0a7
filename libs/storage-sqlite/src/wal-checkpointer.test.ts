import { copyFileSync, existsSync } from "node:fs";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { WAL_AUTOCHECKPOINT_PAGES } from "./db.js";
import { openSqliteStorage, type SqliteStorage } from "./storage.js";
import { BACKSTOP_AUTOCHECKPOINT_PAGES } from "./wal-checkpointer.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir("agent-sqlite-wal-");
afterAll(() => tmp.cleanup());

const autocheckpoint = (storage: SqliteStorage) => storage.db.pragma("wal_autocheckpoint", { simple: true });

/** Threads read from the database file alone, without its WAL (a copy of the file, opened read-only). */
function threadsInFileAlone(path: string): number {
  const copy = tmp.file();
  copyFileSync(path, copy);
  const db = new Database(copy, { readonly: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'threads'").get();
    return table ? (db.prepare("SELECT count(*) AS n FROM threads").get() as { n: number }).n : 0;
  } finally {
    db.close();
  }
}

describe("WAL checkpoints off the event loop", () => {
  it("a worker copies the WAL into the database file while the server's connection keeps only a backstop", async () => {
    const path = tmp.file();
    const storage = await openSqliteStorage({ path, walCheckpoints: { startAfterMs: 0, intervalMs: 20 } });
    try {
      const waited = { timeout: 5_000, interval: 20 };
      await vi.waitFor(() => expect(autocheckpoint(storage)).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES), waited);
      for (let n = 0; n < 200; n++) await storage.threads.create({ thread_id: `t-${n}`, metadata: { n } });
      // Far below the backstop: only the worker can have put these rows into the file itself.
      await vi.waitFor(() => expect(threadsInFileAlone(path)).toBe(200), waited);
      const report = await vi.waitFor(() => storage.walCheckpointer?.last ?? expect.fail("no report from the worker yet"), waited);
      expect(report.checkpointed).toBeGreaterThan(0);
      expect(report.error).toBeUndefined();
      expect(storage.walCheckpointer?.running).toBe(true);
    } finally {
      await storage.close();
    }
    expect(storage.walCheckpointer?.running).toBe(false);
    // The worker's connection closed first: the server's, the last, checkpointed and removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = await openSqliteStorage({ path, walCheckpoints: "inline" });
    expect((await reopened.threads.search({ limit: 1000 })).length).toBe(200);
    await reopened.close();
  });

  it("inline: no worker, SQLite's automatic checkpoint in the commit as before", async () => {
    const storage = await openSqliteStorage({ path: tmp.file(), walCheckpoints: "inline" });
    expect(storage.walCheckpointer).toBeUndefined();
    expect(autocheckpoint(storage)).toBe(WAL_AUTOCHECKPOINT_PAGES);
    await storage.close();
  });

  it("an in-memory database has none", async () => {
    const memory = await openSqliteStorage({ path: ":memory:" });
    expect(memory.walCheckpointer).toBeUndefined();
    await memory.close();
  });
});
