import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { collect, newThread, startEngine } from "../../test/support/harness.js";
import { instrumentStorage, type InstrumentedStorage, type StorageCall } from "../../test/support/instrumented-storage.js";
import type { RunSettledEvent, SettlementStep } from "./settlement.js";

/**
 * Settlement's thread update: `threads.update` other than the claim's `busy` mark, or `runs.settle` with
 * the thread's update folded in (that whole write fails: settlement writes the status without it, then
 * updates the thread on its own, which fails again).
 */
const settlementThreadUpdate = (c: StorageCall) =>
  (c.repo === "threads" && c.method === "update" && (c.args[1] as { status?: string }).status !== "busy") ||
  (c.repo === "runs" && c.method === "settle" && (c.args[2] as { thread?: unknown }).thread !== undefined);

/** Nothing listens here: a delivery to it fails and is retried in the background, which is beside the point. */
const WEBHOOK = "http://127.0.0.1:9/settled";

/**
 * A storage failure in one step of settlement after the run's terminal write: the other steps still run
 * (thread, webhook, listeners, streams, waiters) and the failure is logged with its step.
 */
describe.each(drivers)("settlement with a failing step on $name", (driver) => {
  let instrumented: InstrumentedStorage;
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  const stepFailures: Array<{ runId: string; step: SettlementStep; message: string }> = [];
  const runFailures: string[] = [];

  beforeEach(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    instrumented = instrumentStorage(opened.storage);
    storage = instrumented.storage;
    stepFailures.length = 0;
    runFailures.length = 0;
    engine = await startEngine(storage, {
      logger: {
        runStarted: () => undefined,
        runEnded: () => undefined,
        settlementStepFailed: (runId, step, error) => stepFailures.push({ runId, step, message: (error as Error).message }),
        runFailed: (runId) => runFailures.push(runId),
      },
    });
  });

  afterEach(async () => {
    instrumented.fault = undefined;
    await engine.stop(0);
    await dispose();
  });

  /** Settled events per run id. */
  function recordSettled(): Map<string, RunSettledEvent[]> {
    const seen = new Map<string, RunSettledEvent[]>();
    engine.onRunSettled((event) => void seen.set(event.run.run_id, [...(seen.get(event.run.run_id) ?? []), event]));
    return seen;
  }

  /** Deliveries enqueued for `runId` that reached the driver. */
  const webhooksOf = (runId: string) =>
    instrumented.calls.filter(
      (c) => c.repo === "deliveries" && c.method === "enqueue" && (c.args[0] as { run_id?: string }).run_id === runId,
    ).length;

  /** Streams a run, waits for it, and returns what every consumer of its end saw. */
  async function runThrough(assistant: string, input: unknown, extra: Record<string, unknown> = {}, threadId?: string) {
    const { run, events } = await engine.streamRun(
      { assistant_id: assistant, input, webhook: WEBHOOK, stream_mode: ["values"], ...extra } as never,
      threadId ? { threadId } : {},
    );
    const [streamed, end] = await Promise.all([collect(events), engine.waitRun(run.run_id, run.thread_id).catch(() => null)]);
    return { run, streamed, end };
  }

  it("the thread update fails: listeners, webhook, streams and waiters still run", async () => {
    const seen = recordSettled();
    const threadId = await newThread(storage);
    // Settlement's thread update is the one that is not the executor's `busy` mark; a driver with
    // `settle` makes it with the terminal write, which then fails as a whole.
    instrumented.fault = (c: StorageCall) => settlementThreadUpdate(c);
    const { run, streamed, end } = await runThrough("echo", { messages: [{ role: "user", content: "hi" }] }, {}, threadId);
    instrumented.fault = undefined;

    expect(end?.status).toBe("success");
    expect(streamed.length).toBeGreaterThan(0);
    expect((await storage.runs.get(run.run_id))?.status).toBe("success");
    expect(seen.get(run.run_id)?.map((e) => e.status)).toEqual(["success"]);
    expect(webhooksOf(run.run_id)).toBe(1);
    expect(stepFailures).toEqual([{ runId: run.run_id, step: "thread", message: "injected failure: threads.update" }]);
    expect(runFailures).toEqual([]);
  });

  it("enqueueing the webhook fails: the thread is updated, listeners, streams and waiters still run", async () => {
    const seen = recordSettled();
    const threadId = await newThread(storage);
    instrumented.fault = (c) => c.repo === "deliveries" && c.method === "enqueue";
    const { run, end } = await runThrough("echo", { messages: [{ role: "user", content: "hi" }] }, {}, threadId);
    instrumented.fault = undefined;

    expect(end?.status).toBe("success");
    expect((await storage.threads.get(threadId))?.status).toBe("idle");
    expect(seen.get(run.run_id)?.map((e) => e.status)).toEqual(["success"]);
    expect(stepFailures.map((f) => f.step)).toEqual(["webhook"]);
  });

  it("publishing the error event of a failed resumable run fails: the thread still says error", async () => {
    const seen = recordSettled();
    const threadId = await newThread(storage);
    instrumented.fault = (c) => c.repo === "events" && c.method === "append" && c.args[1] === "error";
    const { run, end } = await runThrough("failing", { messages: [] }, { stream_resumable: true }, threadId);
    instrumented.fault = undefined;

    expect(end?.status).toBe("error");
    expect((await storage.threads.get(threadId))?.status).toBe("error");
    expect(seen.get(run.run_id)?.map((e) => e.status)).toEqual(["error"]);
    expect(webhooksOf(run.run_id)).toBe(1);
    expect(stepFailures.map((f) => f.step)).toEqual(["error-event"]);
  });

  it("every step after the terminal write fails: streams end and waiters wake all the same", async () => {
    const seen = recordSettled();
    const threadId = await newThread(storage);
    instrumented.fault = (c) =>
      settlementThreadUpdate(c) ||
      (c.repo === "deliveries" && c.method === "enqueue") ||
      (c.repo === "events" && c.method === "append" && c.args[1] === "error");
    const { run, end } = await runThrough("failing", { messages: [] }, { stream_resumable: true }, threadId);
    instrumented.fault = undefined;

    expect(end?.status).toBe("error");
    expect((await storage.runs.get(run.run_id))?.status).toBe("error");
    expect(seen.get(run.run_id)?.map((e) => e.status)).toEqual(["error"]);
    expect(stepFailures.map((f) => f.step)).toEqual(["error-event", "thread", "webhook"]);
  });

  it("deleting a stateless run's temporary thread fails: its waiter still wakes", async () => {
    const seen = recordSettled();
    instrumented.fault = (c) => c.repo === "threads" && c.method === "delete";
    const { run, end } = await runThrough("echo", { messages: [{ role: "user", content: "hi" }] });
    instrumented.fault = undefined;

    expect(end?.status).toBe("success");
    expect(seen.get(run.run_id)?.map((e) => e.status)).toEqual(["success"]);
    expect(stepFailures.map((f) => f.step)).toEqual(["temporary-thread"]);
  });

  it("a run cancelled while pending whose thread and webhook steps fail: listeners and waiters still run", async () => {
    const seen = recordSettled();
    const threadId = await newThread(storage);
    const busy = await engine.createRun({ assistant_id: "slow", input: { delayMs: 200 } }, { threadId });
    const queued = await engine.createRun(
      { assistant_id: "echo", input: { messages: [] }, multitask_strategy: "enqueue", webhook: WEBHOOK },
      { threadId },
    );
    const waiting = engine.waitRun(queued.run_id);
    instrumented.fault = (c) => (c.repo === "threads" && c.method === "get") || (c.repo === "deliveries" && c.method === "enqueue");
    await engine.cancel([queued.run_id]);
    instrumented.fault = undefined;

    expect((await waiting).status).toBe("interrupted");
    expect(seen.get(queued.run_id)?.map((e) => e.status)).toEqual(["interrupted"]);
    expect(stepFailures.map((f) => [f.runId, f.step])).toEqual([
      [queued.run_id, "thread"],
      [queued.run_id, "webhook"],
    ]);
    expect((await engine.waitRun(busy.run_id)).status).toBe("success");
  });
});
