import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import type { RunSettledEvent } from "./settlement.js";

/** `engine.onRunSettled`: one call per run that reached a terminal status, never a failed settlement. */
describe.each(drivers)("onRunSettled on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  const failures: Array<{ runId: string; error: unknown }> = [];

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    failures.length = 0;
    engine = await startEngine(storage, {
      logger: {
        runStarted: () => undefined,
        runEnded: () => undefined,
        settledListenerFailed: (runId, error) => failures.push({ runId, error }),
      },
    });
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  /** Events per run id, recorded by a listener registered for the test. */
  function record(): Map<string, RunSettledEvent[]> {
    const seen = new Map<string, RunSettledEvent[]>();
    engine.onRunSettled((event) => {
      seen.set(event.run.run_id, [...(seen.get(event.run.run_id) ?? []), event]);
    });
    return seen;
  }

  it("reports success, error, interrupt() and a cancel of a running run once each, with the run's internal facts", async () => {
    const seen = record();
    const threadId = await newThread(storage);
    const ok = await engine.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId, internal: { captureResult: true } });
    expect((await engine.waitRun(ok.run_id)).status).toBe("success");
    const failed = await engine.createRun({ assistant_id: "failing", input: { messages: [] } }, { threadId: await newThread(storage) });
    expect((await engine.waitRun(failed.run_id)).status).toBe("error");
    const asking = await engine.createRun({ assistant_id: "approval", input: { request: "x" } }, { threadId: await newThread(storage) });
    expect((await engine.waitRun(asking.run_id)).status).toBe("success");
    const slow = await engine.createRun({ assistant_id: "slow", input: { delayMs: 2000 } }, { threadId: await newThread(storage) });
    await eventually(async () => (await storage.runs.get(slow.run_id))?.status === "running");
    await engine.cancel([slow.run_id]);
    expect((await engine.waitRun(slow.run_id)).status).toBe("interrupted");

    // Waiters are woken after the listeners: every event is there when waitRun resolves.
    expect(seen.get(ok.run_id)).toHaveLength(1);
    expect(seen.get(ok.run_id)![0]).toMatchObject({
      status: "success",
      run: { run_id: ok.run_id, status: "success" },
      internal: { captureResult: true },
    });
    expect(seen.get(failed.run_id)!.map((e) => [e.status, e.internal?.captureResult ?? false])).toEqual([["error", false]]);
    expect(seen.get(asking.run_id)!.map((e) => e.status)).toEqual(["success"]);
    expect(seen.get(slow.run_id)!.map((e) => e.status)).toEqual(["interrupted"]);
  });

  it("reports a run cancelled while pending; not a rolled-back one", async () => {
    const seen = record();
    const threadId = await newThread(storage);
    const busy = await engine.createRun({ assistant_id: "slow", input: { delayMs: 300 } }, { threadId });
    const queued = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, multitask_strategy: "enqueue" }, { threadId });
    const [cancelled] = await engine.cancel([queued.run_id]);
    expect(cancelled?.status).toBe("interrupted");
    expect(seen.get(queued.run_id)!.map((e) => [e.status, e.run.status])).toEqual([["interrupted", "interrupted"]]);

    const erased = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, multitask_strategy: "enqueue" }, { threadId });
    await engine.cancel([erased.run_id], { action: "rollback" });
    await engine.waitRun(busy.run_id);
    expect(seen.has(erased.run_id)).toBe(false);
    expect(seen.get(busy.run_id)!.map((e) => e.status)).toEqual(["success"]);
  });

  it("calls listeners after the thread is updated and before waiters wake; a throwing listener does not break settlement", async () => {
    const observed: Array<{ threadStatus: string | undefined; woken: boolean }> = [];
    let woken = false;
    engine.onRunSettled(() => {
      throw new Error("listener failed on purpose");
    });
    engine.onRunSettled(async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      observed.push({ threadStatus: (await storage.threads.get(event.run.thread_id))?.status, woken });
    });
    const rejecting = engine.onRunSettled(async () => Promise.reject(new Error("async failure")));

    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "x" }] } }, { threadId });
    const end = await engine.waitRun(run.run_id).then((result) => ((woken = true), result));
    expect(end.status).toBe("success");
    expect(observed).toEqual([{ threadStatus: "idle", woken: false }]);
    expect((await storage.runs.get(run.run_id))?.status).toBe("success");
    expect(failures.map((f) => [f.runId, (f.error as Error).message])).toEqual([
      [run.run_id, "listener failed on purpose"],
      [run.run_id, "async failure"],
    ]);

    // Removed listeners are not called again.
    rejecting();
    const next = await engine.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId });
    expect((await engine.waitRun(next.run_id)).status).toBe("success");
    expect(failures.filter((f) => f.runId === next.run_id)).toHaveLength(1);
  });

  it("createCancelledRun: an interrupted run in one write that never executes, reported once, refused on a busy thread", async () => {
    const seen = record();
    const threadId = await newThread(storage);
    const asking = await engine.createRun({ assistant_id: "approval", input: { request: "x" } }, { threadId });
    expect((await engine.waitRun(asking.run_id)).status).toBe("success");
    const before = (await storage.threads.get(threadId))!;

    const ended = await engine.createCancelledRun(
      { assistant_id: "approval", command: { resume: "yes" } },
      { threadId, internal: { captureResult: true, taskId: asking.run_id } },
    );
    expect(ended.status).toBe("interrupted");
    expect((await engine.waitRun(ended.run_id)).status).toBe("interrupted");
    expect(seen.get(ended.run_id)!.map((e) => [e.status, e.internal?.taskId])).toEqual([["interrupted", asking.run_id]]);
    // The resume never ran: the thread still waits at the same question with the same values.
    await new Promise((r) => setTimeout(r, 150));
    const after = (await storage.threads.get(threadId))!;
    expect(after.values).toEqual(before.values);
    expect(after.interrupts).toEqual(before.interrupts);
    expect((await storage.runs.get(ended.run_id))!.status).toBe("interrupted");

    const busy = await engine.createRun({ assistant_id: "slow", input: { delayMs: 500 } }, { threadId: await newThread(storage) });
    await expect(engine.createCancelledRun({ assistant_id: "slow", input: {} }, { threadId: busy.thread_id })).rejects.toThrow(
      /already running/,
    );
    expect((await engine.waitRun(busy.run_id)).status).toBe("success");
  });
});
