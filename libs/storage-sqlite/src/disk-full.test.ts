import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStorage, type SqliteStorage } from "./storage.js";

/**
 * The driver on a disk that fills up (a 2 MiB tmpfs; mounting needs root, as CI has). In WAL mode the
 * full disk shows at commit, when the WAL is appended to: a write that returns must be stored, and one
 * that is not stored must throw SQLite's own SQLITE_FULL (what core's storageFault turns into a 507).
 */
let dir: string;
let storage: SqliteStorage;
beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error(`this test mounts a tmpfs and must run as root (CI does); uid is ${process.getuid?.()}`);
  dir = mkdtempSync(join(tmpdir(), "sqlite-disk-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir]);
  storage = await openSqliteStorage({ path: join(dir, "db.sqlite") });
});
afterAll(async () => {
  await storage?.close();
  execFileSync("umount", ["-l", dir]);
  rmSync(dir, { recursive: true, force: true });
});

const BIG = { note: "x".repeat(64 * 1024) };

/** Calls `write` with 0, 1, 2, ... until it throws; returns the error. */
async function untilRefused(write: (n: number) => Promise<void>): Promise<{ error: unknown }> {
  for (let n = 0; n < 1000; n++) {
    try {
      await write(n);
    } catch (error) {
      return { error };
    }
  }
  throw new Error("the disk never filled");
}

describe("SQLite driver on a full disk", () => {
  it("a thread or run create that returned is stored; the one the disk refused throws SQLITE_FULL and left nothing", async () => {
    // Each step a new thread and a run on it, both large, until the disk refuses one of them.
    const created: { threadId: string; runId?: string }[] = [];
    const { error } = await untilRefused(async (n) => {
      const thread = await storage.threads.create({ thread_id: `thread-${n}`, metadata: BIG });
      created.push({ threadId: thread.thread_id });
      const run = await storage.runs.create({ run_id: `run-${n}`, thread_id: thread.thread_id, assistant_id: "a", kwargs: BIG });
      created.at(-1)!.runId = run.run_id;
    });
    expect(error).toMatchObject({ code: "SQLITE_FULL" });
    expect(created.filter((c) => c.runId).length).toBeGreaterThan(0);
    for (const { threadId, runId } of created) {
      expect(await storage.threads.getHeader(threadId)).not.toBeNull();
      if (runId) expect(await storage.runs.get(runId)).toMatchObject({ run_id: runId, thread_id: threadId });
    }
    // The refused write is not there: neither the thread that was never acknowledged, nor the run.
    const refused = created.length;
    const lastRun = created.at(-1)?.runId === undefined ? refused - 1 : refused;
    expect(await storage.threads.getHeader(`thread-${refused}`)).toBeNull();
    expect(await storage.runs.get(`run-${lastRun}`)).toBeNull();
    expect(storage.db.pragma("integrity_check", { simple: true })).toBe("ok");
  });
});
