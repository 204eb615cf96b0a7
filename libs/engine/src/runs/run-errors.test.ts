import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { RUN_ERROR_MESSAGE_MAX, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";

/** A message longer than a run keeps, with an emoji (a surrogate pair) straddling the cut. */
const LONG = `${"x".repeat(RUN_ERROR_MESSAGE_MAX - 1)}🙂${"y".repeat(3000)}`;

class QuotaExceeded extends Error {
  override readonly name = "QuotaExceeded";
}

const longFailureGraph = new StateGraph(MessagesAnnotation)
  .addNode("fail", async () => {
    throw new QuotaExceeded(LONG);
  })
  .addEdge("__start__", "fail")
  .compile();

const hello = { messages: [{ role: "user", content: "hi" }] };

/** Settlement keeps each failed run's own error with the run (`RunRepo.getError`), apart from the thread's. */
describe.each(drivers)("run errors on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage, {}, { "long-failure": longFailureGraph });
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("a failed run keeps its type and message, cut at the limit without splitting a character; others keep none", async () => {
    const thread = await newThread(storage);
    const failed = await engine.createRunAndWait({ assistant_id: "long-failure", input: hello }, { threadId: thread });
    expect(failed.end.status).toBe("error");
    // The run keeps the first RUN_ERROR_MESSAGE_MAX - 1 characters here (the cut would fall inside the
    // emoji). The waiter gets the whole message when settlement wakes it, the kept one when it reads the
    // ended run from storage.
    expect(failed.end.error?.error).toBe("QuotaExceeded");
    expect(failed.end.error?.message.startsWith("x".repeat(RUN_ERROR_MESSAGE_MAX - 1))).toBe(true);
    expect(await storage.runs.getError(failed.run.run_id)).toEqual({
      error: "QuotaExceeded",
      message: "x".repeat(RUN_ERROR_MESSAGE_MAX - 1),
    });
    const succeeded = await engine.createRunAndWait({ assistant_id: "echo", input: hello }, { threadId: thread });
    expect(succeeded.end.status).toBe("success");
    expect(await storage.runs.getError(succeeded.run.run_id)).toBeNull();
  });

  it("waitRun of a failed run that ended before the wait answers its own error, not the thread's", async () => {
    const thread = await newThread(storage);
    const failed = await engine.createRunAndWait({ assistant_id: "failing", input: hello }, { threadId: thread });
    const own = { error: "Error", message: "graph failed on purpose" };
    expect(failed.end.error).toEqual(own);
    await engine.createRunAndWait({ assistant_id: "long-failure", input: hello }, { threadId: thread });
    expect((await storage.threads.get(thread))?.error).toMatchObject({ error: "QuotaExceeded" });
    expect(await engine.waitRun(failed.run.run_id, thread)).toMatchObject({ status: "error", error: own });
    await engine.createRunAndWait({ assistant_id: "echo", input: hello }, { threadId: thread });
    expect((await storage.threads.get(thread))?.error).toBeNull();
    expect(await engine.waitRun(failed.run.run_id, thread)).toMatchObject({ status: "error", error: own });
  });
});
