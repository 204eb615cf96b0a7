import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storageFault, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import { instrumentStorage, type InstrumentedStorage, type StorageCall } from "../../test/support/instrumented-storage.js";

/** What pg throws when the database refuses connections (it is stopped): a storage fault, not a bug. */
function connectionRefused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
}

/** The write that ends a run: `runs.settle` on drivers that settle in one transaction, else `runs.transition`. */
const terminalWrite = (c: StorageCall) => c.repo === "runs" && (c.method === "settle" || c.method === "transition");

/**
 * The database goes away while a run executes: the run is neither ended `error` nor left `running`. It goes
 * back to the queue once the database answers again, and its next attempt ends it `success` with its own output.
 */
describe.each(drivers)("a storage outage under a run on $name", (driver) => {
  let instrumented: InstrumentedStorage;
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  const requeued: Array<{ runId: string; attempt: number; reason: string }> = [];
  const failed: string[] = [];

  beforeEach(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    instrumented = instrumentStorage(opened.storage);
    instrumented.faultError = connectionRefused;
    storage = instrumented.storage;
    requeued.length = 0;
    failed.length = 0;
    engine = await startEngine(storage, {
      logger: {
        runStarted: () => undefined,
        runEnded: () => undefined,
        runRequeued: (runId, _thread, attempt, reason) => requeued.push({ runId, attempt, reason }),
        runFailed: (runId) => failed.push(runId),
      },
    });
  });

  afterEach(async () => {
    instrumented.fault = undefined;
    await engine.stop(0);
    await dispose();
  });

  it("the terminal write fails while the database is away: the run is handed back and ends success with its output", async () => {
    const threadId = await newThread(storage);
    // Every terminal write fails for 600 ms from the first one: the hand-back's requeue fails too until then.
    let outageEnds: number | undefined;
    instrumented.fault = (c) => {
      if (!terminalWrite(c) && !(c.repo === "runs" && c.method === "requeue")) return false;
      outageEnds ??= Date.now() + 600;
      return Date.now() < outageEnds;
    };
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "during" }] } } as never, {
      threadId,
    });
    const end = await engine.waitRun(run.run_id, threadId);

    expect(end.status).toBe("success");
    const stored = await storage.runs.get(run.run_id);
    expect(stored?.status).toBe("success");
    const thread = await storage.threads.get(threadId);
    expect(thread?.status).toBe("idle");
    const messages = (thread?.values as { messages: { content: string }[] }).messages.map((m) => m.content);
    // The input applied once (the second attempt resumed from the first one's checkpoint), answered once.
    expect(messages).toEqual(["during", "echo: during"]);
    expect(requeued).toEqual([{ runId: run.run_id, attempt: 1, reason: "storage" }]);
    expect(failed).toEqual([]);
  });

  it("an event write fails mid-execution: the run goes back to the queue instead of ending error", async () => {
    const threadId = await newThread(storage);
    let faults = 0;
    // The first event a resumable run stores fails as if the database had gone; the requeue that follows works.
    instrumented.fault = (c) => c.repo === "events" && c.method === "append" && (faults += 1) === 1;
    const { run, events } = await engine.streamRun(
      {
        assistant_id: "echo",
        input: { messages: [{ role: "user", content: "mid-run" }] },
        stream_mode: ["values"],
        stream_resumable: true,
      } as never,
      { threadId },
    );
    for await (const event of events) void event;
    const end = await engine.waitRun(run.run_id, threadId);

    expect(end.status).toBe("success");
    expect(faults).toBeGreaterThan(1);
    expect(requeued).toEqual([{ runId: run.run_id, attempt: 1, reason: "storage" }]);
    const thread = await storage.threads.get(threadId);
    expect((thread?.values as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual(["mid-run", "echo: mid-run"]);
    expect(failed).toEqual([]);
  });

  it("a run its storage keeps refusing: the wait answers the fault while the run is kept, and it ends success once writes are taken", async () => {
    await engine.stop(0);
    engine = await startEngine(storage, {
      stallAnswerMs: 300,
      logger: {
        runStarted: () => undefined,
        runEnded: () => undefined,
        runRequeued: (runId, _thread, attempt, reason) => requeued.push({ runId, attempt, reason }),
      },
    });
    const threadId = await newThread(storage);
    // A full disk: every terminal write is refused, reads and the requeue still answer.
    instrumented.faultError = () => Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    let refusing = true;
    instrumented.fault = (c) => refusing && terminalWrite(c);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "full" }] } } as never, {
      threadId,
    });
    const answered = await engine.waitRun(run.run_id, threadId).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(storageFault(answered)).toMatchObject({ kind: "full", status: 507, code: "SQLITE_FULL" });
    expect(storageFault(answered)?.detail).toContain(`SQLite is out of disk space (SQLITE_FULL); run ${run.run_id} is kept`);
    expect((await storage.runs.get(run.run_id))?.status).not.toMatch(/success|error/);

    refusing = false;
    const end = await engine.waitRun(run.run_id, threadId);
    expect(end.status).toBe("success");
    expect(requeued.length).toBeGreaterThan(0);
    expect(requeued.every((r) => r.runId === run.run_id && r.reason === "storage")).toBe(true);
    const thread = await storage.threads.get(threadId);
    expect((thread?.values as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual(["full", "echo: full"]);
  });
});
