import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { drivers } from "@agent-server/testing";
import type { Storage } from "@agent-server/core";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import { admittedRunTimeout } from "./run-timeout.js";

/** A node awaiting an upstream that never answers and ignores the abort signal. */
const stuckGraph = new StateGraph(MessagesAnnotation)
  .addNode("call_upstream", () => new Promise<never>(() => undefined))
  .addEdge("__start__", "call_upstream")
  .compile();

describe.each(drivers)("run time limit on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    // One worker: a stuck run that kept it would block the next run forever. The limit leaves runs meant to
    // finish in time (an echo, a 10 ms sleep) a wide margin on a loaded CI machine over PostgreSQL.
    engine = await startEngine(storage, { workers: 1, runTimeoutMs: 1500 }, { stuck: stuckGraph });
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("ends a run stuck on an upstream that ignores the abort `timeout`, with the reason, and frees its worker", async () => {
    const threadId = await newThread(storage);
    const { run, end } = await engine.createRunAndWait({ assistant_id: "stuck", input: { messages: [] } }, { threadId });
    expect(end.status).toBe("timeout");
    expect(end.error).toEqual({ error: "TimeoutError", message: "the run exceeded its time limit of 1.5 s and was stopped" });
    expect((await storage.runs.get(run.run_id))?.status).toBe("timeout");
    expect(await storage.runs.getError(run.run_id)).toEqual(end.error);
    expect((await storage.threads.get(threadId))?.status).toBe("error");
    // The only worker is free again: the next run executes and succeeds.
    const next = await engine.createRunAndWait(
      { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } },
      { threadId },
    );
    expect(next.end.status).toBe("success");
  });

  it("stops a graph that honours the abort at the limit, and leaves runs that finish in time alone", async () => {
    const threadId = await newThread(storage);
    const slow = await engine.createRunAndWait({ assistant_id: "slow", input: { delayMs: 5000 } }, { threadId });
    expect(slow.end.status).toBe("timeout");
    const quick = await engine.createRunAndWait({ assistant_id: "slow", input: { delayMs: 10 } }, { threadId });
    expect(quick.end.status).toBe("success");
  });

  it("an assistant's config.run_timeout replaces the server's; a request may only shorten it", async () => {
    const patient = await storage.assistants.create({ assistant_id: crypto.randomUUID(), graph_id: "slow", config: { run_timeout: 10 } });
    const threadId = await newThread(storage);
    const allowed = await engine.createRunAndWait({ assistant_id: patient.assistant_id, input: { delayMs: 1700 } }, { threadId });
    expect(allowed.end.status).toBe("success");
    expect((allowed.run.kwargs.config as Record<string, unknown>).run_timeout).toBe(10);
    const shortened = await engine.createRunAndWait(
      { assistant_id: patient.assistant_id, input: { delayMs: 5000 }, config: { run_timeout: 0.2 } },
      { threadId },
    );
    expect(shortened.end.status).toBe("timeout");
    // Longer than the server's 1.5 s on an assistant without its own: held to 1.5 s.
    const widened = await engine.createRunAndWait(
      { assistant_id: "slow", input: { delayMs: 5000 }, config: { run_timeout: 60 } },
      { threadId },
    );
    expect(widened.end.status).toBe("timeout");
    expect((widened.run.kwargs.config as Record<string, unknown>).run_timeout).toBe(1.5);
  });

  it("refuses a run_timeout that is not a number of seconds before anything is written", async () => {
    const threadId = await newThread(storage);
    await expect(
      engine.createRun({ assistant_id: "echo", input: { messages: [] }, config: { run_timeout: "1h" } }, { threadId }),
    ).rejects.toThrow('config.run_timeout must be a number of seconds (0 for no limit), got "1h"');
    expect(await storage.runs.search({ thread_id: threadId })).toEqual([]);
  });
});

describe("admittedRunTimeout", () => {
  it("leaves the config alone when nobody set a limit, and never lets a request lengthen one", () => {
    expect(admittedRunTimeout({}, undefined, 3_600_000)).toBeUndefined();
    expect(admittedRunTimeout({}, { run_timeout: 60 }, 3_600_000)).toBe(60);
    expect(admittedRunTimeout({}, { run_timeout: 7200 }, 3_600_000)).toBe(3600);
    expect(admittedRunTimeout({}, { run_timeout: 0 }, 3_600_000)).toBe(3600);
    expect(admittedRunTimeout({}, { run_timeout: 5 }, 0)).toBe(5);
    expect(admittedRunTimeout({ run_timeout: 7200 }, undefined, 3_600_000)).toBe(7200);
    expect(admittedRunTimeout({ run_timeout: 0 }, { run_timeout: 9 }, 3_600_000)).toBe(9);
    expect(admittedRunTimeout({ run_timeout: 0 }, undefined, 3_600_000)).toBe(0);
  });
});
