/**
 * Faults around the edges of a run on SQLite: storage failing under the background loops, and a rollback
 * arriving after the terminal write.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import { instrumentStorage, type InstrumentedStorage } from "../../test/support/instrumented-storage.js";
import type { BackgroundTask } from "./run-logger.js";

const sqlite = drivers.find((driver) => driver.name === "sqlite")!;

let instrumented: InstrumentedStorage;
let engine: Engine;
let dispose: () => Promise<void>;
const failures: Array<{ task: BackgroundTask; message: string }> = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

beforeEach(async () => {
  failures.length = 0;
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
  const opened = await sqlite.open();
  dispose = opened.dispose;
  instrumented = instrumentStorage(opened.storage);
  engine = await startEngine(instrumented.storage, {
    cronPollMs: 50,
    logger: {
      runStarted: () => undefined,
      runEnded: () => undefined,
      backgroundFailed: (task, error) => void failures.push({ task, message: (error as Error).message }),
    },
  });
});

afterEach(async () => {
  instrumented.fault = undefined;
  await engine.stop(0);
  await dispose();
  process.off("unhandledRejection", onUnhandled);
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it("storage failing under the claim, delivery and cron loops is logged per loop, never an unhandled rejection, and work resumes after", async () => {
  const failing = new Set(["runs.claimNext", "deliveries.claimDue", "crons.listDue"]);
  instrumented.fault = (call) => failing.has(`${call.repo}.${call.method}`);
  const threadId = await newThread(instrumented.storage);
  // Deferred, so that the claim loop is what takes it (a run due now is claimed by its admission).
  const run = await engine.createRun(
    { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] }, after_seconds: 0.01 } as never,
    {
      threadId,
    },
  );

  await until(() => new Set(failures.map((f) => f.task)).size === 3, "a failure of each loop");
  expect(new Set(failures.map((f) => f.task))).toEqual(new Set(["claim", "deliveries", "crons"]));
  expect(failures.every((f) => f.message.startsWith("injected failure"))).toBe(true);
  expect((await instrumented.storage.runs.get(run.run_id))?.status).toBe("pending");

  instrumented.fault = undefined;
  const end = await engine.waitRun(run.run_id, threadId);
  expect(end.status).toBe("success");
  expect(unhandled).toEqual([]);
});

it("a rollback that reaches a run after its terminal write is refused, not reported as done", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atWebhook = new Promise<void>((resolve) => (reached = resolve));
  const threadId = await newThread(instrumented.storage);
  // Holds settlement at its webhook, a step after the run's terminal write (and the thread's update).
  instrumented.before = async (call) => {
    if (call.repo === "deliveries" && call.method === "enqueue") {
      reached();
      await held;
    }
  };
  // Nothing listens at the webhook: its delivery fails and is retried in the background, beside the point.
  const run = await engine.createRun(
    { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] }, webhook: "http://127.0.0.1:9/settled" } as never,
    { threadId },
  );
  await atWebhook;
  expect((await instrumented.storage.runs.get(run.run_id))?.status).toBe("success");

  const cancelled = await engine.cancel([run.run_id], { action: "rollback" });
  release();
  instrumented.before = undefined;
  const end = await engine.waitRun(run.run_id, threadId);

  expect(cancelled).toEqual([]);
  expect(end.status).toBe("success");
  expect((await instrumented.storage.runs.get(run.run_id))?.status).toBe("success");
});
