import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessagesAnnotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { collect, newThread, startEngine } from "../../test/support/harness.js";

/** A node with LangGraph 1.7's per-node time limit (`timeout`), which it overruns. */
const overrunning = new StateGraph(MessagesAnnotation)
  .addNode(
    "lookup",
    async (_state, config: LangGraphRunnableConfig) => {
      await sleep(5000, undefined, { signal: config.signal });
      return {};
    },
    { timeout: { runTimeout: 50 } },
  )
  .addEdge("__start__", "lookup")
  .compile();

const hello = { messages: [{ role: "user", content: "hi" }] };

/**
 * A node that overruns its `timeout` fails the run with LangGraph's `NodeTimeoutError`, which names the
 * node: the run ends `error` (not `timeout`, the server's own run time limit), with that error as the
 * run's error, on its stream and for its waiters, as the official server reports a graph's exception.
 */
describe.each(drivers)("per-node timeouts on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage, {}, { overrunning });
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it("ends the run `error` with NodeTimeoutError naming the node", async () => {
    const threadId = await newThread(storage);
    const { run, events } = await engine.streamRun({ assistant_id: "overrunning", input: hello }, { threadId });
    const streamed = await collect(events);
    const error = { error: "NodeTimeoutError", message: expect.stringMatching(/^Node "lookup" exceeded its run timeout of 50ms/) };
    expect(streamed.at(-1)).toMatchObject({ event: "error", data: error });
    const end = await engine.waitRun(run.run_id, threadId);
    expect(end).toMatchObject({ status: "error", error });
    expect(await storage.runs.getError(run.run_id)).toMatchObject(error);
    expect(await storage.threads.get(threadId)).toMatchObject({ status: "error", error });
  });
});
