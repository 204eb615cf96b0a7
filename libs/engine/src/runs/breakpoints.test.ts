import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Annotation, StateGraph } from "@langchain/langgraph";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import { ThreadStateService } from "../threads/thread-state-service.js";
import type { RunCreateRequest } from "./run-request.js";

const Steps = Annotation.Root({ steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });

/** Two nodes, with a breakpoint compiled into the graph before the second. */
const compiledBreakpoint = new StateGraph(Steps)
  .addNode("first", () => ({ steps: ["first"] }))
  .addNode("second", () => ({ steps: ["second"] }))
  .addEdge("__start__", "first")
  .addEdge("first", "second")
  .compile({ interruptBefore: ["second"] });

/** Static breakpoints (`interrupt_before` / `interrupt_after`): the graph stops with work left, without interrupt(). */
describe.each(drivers.filter((d) => d.name !== "postgres"))("runs stopped at a breakpoint on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage);
    engine.registry.register("compiled-breakpoint", compiledBreakpoint);
    await engine.registry.ensureSystemAssistants(storage);
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  async function runToEnd(threadId: string, request: Parameters<Engine["createRun"]>[0]) {
    const run = await engine.createRun(request, { threadId });
    return engine.waitRun(run.run_id);
  }

  it.each([
    ["interrupt_before", { interrupt_before: ["second"] }],
    ["interrupt_after", { interrupt_after: ["first"] }],
  ] as [string, Partial<RunCreateRequest>][])(
    "%s: the run succeeds, the thread is interrupted, and input null goes on to idle",
    async (_name, breakpoint) => {
      const threadId = await newThread(storage);
      const stopped = await runToEnd(threadId, { assistant_id: "slow", input: { delayMs: 1 }, ...breakpoint });
      expect(stopped.status).toBe("success");
      const waiting = await storage.threads.get(threadId);
      expect(waiting).toMatchObject({ status: "interrupted", interrupts: {}, values: { steps: [1] } });

      const state = await new ThreadStateService(storage, engine.registry).getState(threadId);
      expect(state.next).toEqual(["second"]);

      const continued = await runToEnd(threadId, { assistant_id: "slow", input: null });
      expect(continued.status).toBe("success");
      expect(await storage.threads.get(threadId)).toMatchObject({ status: "idle", values: { steps: [1, 2] } });
    },
  );

  it("a breakpoint compiled into the graph leaves the thread interrupted too", async () => {
    const threadId = await newThread(storage);
    expect((await runToEnd(threadId, { assistant_id: "compiled-breakpoint", input: {} })).status).toBe("success");
    expect((await storage.threads.get(threadId))?.status).toBe("interrupted");
    expect((await runToEnd(threadId, { assistant_id: "compiled-breakpoint", input: null })).status).toBe("success");
    expect(await storage.threads.get(threadId)).toMatchObject({ status: "idle", values: { steps: ["first", "second"] } });
  });

  it("a state update at a breakpoint keeps the thread interrupted until it goes on", async () => {
    const threadId = await newThread(storage);
    await runToEnd(threadId, { assistant_id: "slow", input: { delayMs: 1 }, interrupt_before: ["second"] });
    const service = new ThreadStateService(storage, engine.registry);
    await service.updateState(threadId, { values: { steps: [9] } });
    expect(await storage.threads.get(threadId)).toMatchObject({ status: "interrupted", values: { steps: [1, 9] } });
    expect((await service.getState(threadId)).next).toEqual(["second"]);
  });

  it("a run cancelled partway leaves the thread idle, though its state still names the step it was in", async () => {
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "slow", input: { delayMs: 5000 } }, { threadId });
    const service = new ThreadStateService(storage, engine.registry);
    // Cancel once the graph is inside "first" (its step-0 checkpoint is written).
    await eventually(async () => (await service.getState(threadId)).next[0] === "first");
    await engine.cancel([run.run_id], { action: "interrupt", threadId });
    expect((await engine.waitRun(run.run_id)).status).toBe("interrupted");
    expect((await service.getState(threadId)).next).toEqual(["first"]);
    expect((await storage.threads.get(threadId))?.status).toBe("idle");
  });
});
