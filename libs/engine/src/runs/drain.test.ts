import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Annotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { drivers } from "@agent-server/testing";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import type { RunLogger } from "./run-logger.js";

/** Which node ran, per thread: a step that ran twice would show here, whatever the state says. */
const executions = new Map<string, string[]>();

const Steps = Annotation.Root({
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  delayMs: Annotation<number>(),
});

function step(name: string) {
  return async (state: typeof Steps.State, config: LangGraphRunnableConfig) => {
    const threadId = String(config.configurable?.thread_id);
    executions.set(threadId, [...(executions.get(threadId) ?? []), name]);
    await sleep(state.delayMs, undefined, { signal: config.signal });
    return { steps: [name] };
  };
}

/** Two steps inside a subgraph node, then one in the parent: a drain asked during `inner1` stops the subgraph after it. */
const inner = new StateGraph(Steps)
  .addNode("inner1", step("inner1"))
  .addNode("inner2", step("inner2"))
  .addEdge("__start__", "inner1")
  .addEdge("inner1", "inner2")
  .compile();
const nested = new StateGraph(Steps)
  .addNode("sub", inner)
  .addNode("after", step("after"))
  .addEdge("__start__", "sub")
  .addEdge("sub", "after")
  .compile();

/**
 * LangGraph 1.7's cooperative drain (`RunControl.requestDrain`, `GraphDrained`) as the engine's shutdown
 * uses it, at a superstep boundary inside a subgraph: the run is handed back unsettled, and the next
 * process resumes it from the subgraph's checkpoint without running a finished step again.
 */
describe.each(drivers)("drain at a subgraph's step boundary on $name", (driver) => {
  it("hands the run back and the next engine resumes it inside the subgraph, each step run once", async () => {
    const opened = await driver.open();
    const { storage } = opened;
    try {
      const handBacks: string[] = [];
      const logger: RunLogger = {
        runStarted: () => undefined,
        runEnded: () => undefined,
        runRequeued: (_runId, _threadId, _attempt, reason) => void handBacks.push(reason),
      };
      const engine = await startEngine(storage, { logger }, { nested });
      const threadId = await newThread(storage);
      const run = await engine.createRun({ assistant_id: "nested", input: { delayMs: 600 } }, { threadId });
      await eventually(async () => executions.get(threadId)?.includes("inner1"));
      // No grace period: the drain is asked while `inner1` runs; it ends there, within the drain timeout.
      await engine.stop(0, 10_000);
      expect(await storage.runs.get(run.run_id)).toMatchObject({ status: "pending", metadata: { run_attempt: 2 } });
      expect(await storage.runs.getError(run.run_id)).toBeNull();
      expect(executions.get(threadId)).toEqual(["inner1"]);
      // Stopped by the drain at the boundary (GraphDrained), not aborted mid-step.
      expect(handBacks).toEqual(["drained"]);

      const next = await startEngine(storage, {}, { nested });
      try {
        expect((await next.waitRun(run.run_id)).status).toBe("success");
        expect((await storage.threads.get(threadId))?.values).toMatchObject({ steps: ["inner1", "inner2", "after"] });
        expect(executions.get(threadId)).toEqual(["inner1", "inner2", "after"]);
      } finally {
        await next.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });
});
