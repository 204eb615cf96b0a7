import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Annotation, StateGraph } from "@langchain/langgraph";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import type { StreamEvent } from "../streaming/types.js";
import { approvalGraph } from "../../test/support/graphs.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import type { RunCreateRequest } from "./run-request.js";

/** The approval graph as a subgraph node: its interrupt reaches the stream as `updates|<ns>` too. */
const approvalParent = new StateGraph(Annotation.Root({ request: Annotation<string>(), decision: Annotation<string>() }))
  .addNode("approve", approvalGraph)
  .addEdge("__start__", "approve")
  .compile();

function announcesStop(event: StreamEvent): boolean {
  return /^(updates|values)(\|.*)?$/.test(event.event) && Object.hasOwn((event.data ?? {}) as object, "__interrupt__");
}

/**
 * A client told by the stream that its run stopped (an `__interrupt__` chunk, where RemoteGraph stops
 * reading and resumes at once) finds the run ended and its thread free: the resume is admitted with the
 * default multitask strategy, `reject`.
 */
describe.each(drivers)("stop announcements on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage, {}, { "approval-parent": approvalParent });
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  it.each<[string, Partial<RunCreateRequest>]>([
    ["interrupt()", { assistant_id: "approval" }],
    ["a static breakpoint", { assistant_id: "approval", interrupt_before: ["ask"] }],
    ["interrupt() in a subgraph, streamed with its namespace", { assistant_id: "approval-parent", stream_subgraphs: true }],
  ])("announces a stop at %s only once the run has ended and its thread is free", async (_, stop) => {
    const threadId = await newThread(storage);
    const request = { input: { request: "deploy" }, stream_mode: ["values", "updates"], ...stop } as RunCreateRequest;
    const { run, events } = await engine.streamRun(request, { threadId });
    const seen: StreamEvent[] = [];
    let resumeRunId: string | undefined;
    for await (const event of events) {
      seen.push(event);
      if (!announcesStop(event) || resumeRunId) continue;
      // What the client can see the moment it is told: the run ended, the thread waits for it.
      expect((await storage.runs.get(run.run_id))?.status).toBe("success");
      expect((await storage.threads.get(threadId))?.status).toBe("interrupted");
      const resume = stop.interrupt_before ? { input: null } : { command: { resume: "approved" } };
      resumeRunId = (await engine.createRun({ assistant_id: request.assistant_id, ...resume }, { threadId })).run_id;
    }
    // Every event of the run still reached the stream, announcements last (they close the run's step).
    const stops = seen.filter(announcesStop);
    expect(stops.length).toBeGreaterThanOrEqual(2);
    expect(seen.slice(-stops.length)).toEqual(stops);
    expect(seen.map((e) => e.id)).toEqual(seen.map((_, index) => String(index)));
    expect((await engine.waitRun(resumeRunId!)).status).toBe("success");
    // Past the breakpoint the graph goes on into `ask`, which stops at its interrupt().
    expect((await storage.threads.get(threadId))?.status).toBe(stop.interrupt_before ? "interrupted" : "idle");
  });
});
