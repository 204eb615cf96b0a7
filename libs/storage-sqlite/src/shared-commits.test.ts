import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./db.js";
import { openSqliteStorage, type SqliteStorage } from "./storage.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const opened: SqliteStorage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});

/** A storage whose WAL only grows while the test reads it (checkpoints in the connection, not a worker). */
async function open(): Promise<{ s: SqliteStorage; path: string; walFrames: () => number }> {
  const path = tmp.file();
  const s = await openSqliteStorage({ path, walCheckpoints: "inline" });
  opened.push(s);
  return { s, path, walFrames: () => (statSync(`${path}-wal`).size - 32) / (24 + 4096) };
}

const LEASE = { owner: "w1", leaseMs: 60_000 };

function admit(s: SqliteStorage, assistantId: string) {
  const threadId = randomUUID();
  return s.runs.createWithThread!(
    { thread_id: threadId },
    { run_id: randomUUID(), thread_id: threadId, assistant_id: assistantId },
    { claim: LEASE },
  );
}

describe("runs' writes share commits (group-commit.ts)", () => {
  it("runs admitted in one turn commit together: nothing visible before the turn, a page written once for all", async () => {
    const { s, path, walFrames } = await open();
    const reader = openDatabase(path);
    const assistant = (await s.assistants.create({ assistant_id: randomUUID(), graph_id: "agent" })).assistant_id;
    const count = () => (reader.prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n;

    const alone = walFrames();
    for (let i = 0; i < 4; i += 1) await admit(s, assistant);
    const framesApart = walFrames() - alone;

    const together = walFrames();
    const admitted = Array.from({ length: 4 }, () => admit(s, assistant));
    expect(count()).toBe(4); // the four of this turn are not committed yet
    const runs = await Promise.all(admitted);
    expect(count()).toBe(8);
    expect(runs.map((run) => run.status)).toEqual(["running", "running", "running", "running"]);
    // Apart, every admission wrote each page of the tables and indexes it touched; together, once.
    expect(walFrames() - together).toBeLessThan(framesApart / 2);
    reader.close();
  });

  it("settlements and admissions of one turn commit together, each with its own answer", async () => {
    const { s } = await open();
    const assistant = (await s.assistants.create({ assistant_id: randomUUID(), graph_id: "agent" })).assistant_id;
    const [first, second] = [await admit(s, assistant), await admit(s, assistant)];
    const [settled, missing, next] = await Promise.all([
      s.runs.settle(first.run_id, "success", { owner: LEASE.owner, releaseLease: true, thread: { status: "idle" } }),
      s.runs.settle(randomUUID(), "success", { owner: LEASE.owner }),
      admit(s, assistant),
    ]);
    expect(settled).toMatchObject({ run: { run_id: first.run_id, status: "success" }, thread: { status: "idle" } });
    expect(missing).toBeNull();
    expect(next.status).toBe("running");
    expect((await s.runs.get(second.run_id))!.status).toBe("running");
    expect((await s.threads.get(first.thread_id))!.status).toBe("idle");
  });
});
