import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Annotation, StateGraph } from "@langchain/langgraph";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import type { StreamEvent } from "../streaming/types.js";
import { collect, newThread, startEngine } from "../../test/support/harness.js";
import { ThreadStateService } from "../threads/thread-state-service.js";
import type { RunCreateRequest } from "./run-request.js";

const City = Annotation.Root({ city: Annotation<string>(), report: Annotation<string>() });

/** A subgraph that stops before its second node (a breakpoint compiled in), under a router node. */
const forecast = new StateGraph(City)
  .addNode("locate", (state) => ({ city: state.city.toUpperCase() }))
  .addNode("describe", (state) => ({ report: `sunny in ${state.city}` }))
  .addEdge("__start__", "locate")
  .addEdge("locate", "describe")
  .compile({ interruptBefore: ["describe"] });

const weather = new StateGraph(City)
  .addNode("route", () => ({ city: "Lisbon" }))
  .addNode("forecast", forecast)
  .addEdge("__start__", "route")
  .addEdge("route", "forecast")
  .compile();

type Fields = Record<string, unknown>;
const coordinates = (payload: Fields) => ({
  step: (payload.metadata as Fields)?.step,
  checkpoint: payload.checkpoint,
  parent_checkpoint: payload.parent_checkpoint,
});

describe.each(drivers.filter((d) => d.name !== "postgres"))("debug, checkpoints, tasks and tools stream payloads on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage);
    engine.registry.register("weather", weather);
    await engine.registry.ensureSystemAssistants(storage);
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  async function stream(threadId: string, request: Partial<RunCreateRequest>): Promise<StreamEvent[]> {
    const { events } = await engine.streamRun({ assistant_id: "weather", input: {}, ...request }, { threadId });
    return collect(events);
  }

  it("debug checkpoints carry the coordinates history reports, and configs without callbacks or internals", async () => {
    const threadId = await newThread(storage);
    const events = await stream(threadId, { stream_mode: ["debug"] });
    const checkpoints = events
      .filter((e) => e.event === "debug" && (e.data as Fields).type === "checkpoint")
      .map((e) => (e.data as { payload: Fields }).payload);
    expect(checkpoints.length).toBeGreaterThan(1);
    const history = (await new ThreadStateService(storage, engine.registry).history(threadId, { limit: checkpoints.length })).reverse();
    expect(checkpoints.map(coordinates)).toEqual(JSON.parse(JSON.stringify(history.map((h) => coordinates(h as unknown as Fields)))));
    expect(checkpoints[0].parent_checkpoint).toBeNull();

    for (const payload of checkpoints) {
      expect(payload).not.toHaveProperty("parentConfig");
      const config = payload.config as { callbacks?: unknown; configurable: Fields };
      expect(config).not.toHaveProperty("callbacks");
      expect(Object.keys(config.configurable).filter((key) => key.startsWith("__"))).toEqual([]);
    }
    expect(checkpoints[1].parent_config).toMatchObject({
      configurable: { checkpoint_id: (checkpoints[0].checkpoint as Fields).checkpoint_id },
    });

    // The last checkpoint waits on the subgraph task, which points at the subgraph's namespace.
    const [task] = checkpoints.at(-1)!.tasks as Fields[];
    expect(task).not.toHaveProperty("state");
    expect(task).toMatchObject({
      name: "forecast",
      checkpoint: { thread_id: threadId, checkpoint_ns: expect.stringMatching(/^forecast:/), checkpoint_id: null, checkpoint_map: null },
    });
  });

  it("checkpoints events are full checkpoints with coordinates, next, and subgraph tasks pointing at their namespace", async () => {
    const threadId = await newThread(storage);
    const events = await stream(threadId, { stream_mode: ["checkpoints", "tasks"] });
    const checkpoints = events.filter((e) => e.event === "checkpoints").map((e) => e.data as Fields);
    expect(checkpoints.map((c) => c.next)).toEqual([["__start__"], ["route"], ["forecast"]]);
    const state = await new ThreadStateService(storage, engine.registry).getState(threadId);
    expect(checkpoints.at(-1)).toMatchObject({
      values: { city: "Lisbon" },
      metadata: { step: 1, source: "loop" },
      checkpoint: JSON.parse(JSON.stringify(state.checkpoint)),
      parent_checkpoint: JSON.parse(JSON.stringify(state.parent_checkpoint)),
    });
    const [waiting] = checkpoints.at(-1)!.tasks as Fields[];
    expect(waiting).not.toHaveProperty("state");
    expect(waiting.checkpoint).toMatchObject({ checkpoint_ns: expect.stringMatching(/^forecast:/), checkpoint_id: null });

    const tasks = events.filter((e) => e.event === "tasks").map((e) => e.data as Fields);
    expect(tasks.map((t) => [t.name, "result" in t ? "result" : "start"])).toEqual([
      ["route", "start"],
      ["route", "result"],
      ["forecast", "start"],
    ]);
    expect(tasks[1]).toMatchObject({ result: { city: "Lisbon" }, interrupts: [], error: null });
  });

  it("streaming subgraph values also sends LangGraph's checkpoint envelopes as checkpoints events, unless full ones were asked for", async () => {
    const threadId = await newThread(storage);
    const events = await stream(threadId, { stream_mode: ["values"], stream_subgraphs: true });
    const envelopes = events.filter((e) => e.event.split("|")[0] === "checkpoints");
    expect(envelopes.map((e) => e.event)).toContain("checkpoints");
    expect(envelopes.some((e) => /^checkpoints\|forecast:/.test(e.event))).toBe(true);
    for (const envelope of envelopes) {
      expect(envelope.data).toMatchObject({ id: expect.any(String), step: expect.any(Number), source: expect.any(String) });
      expect(envelope.data).not.toHaveProperty("values");
    }

    const full = await stream(await newThread(storage), { stream_mode: ["values", "checkpoints"], stream_subgraphs: true });
    const checkpoints = full.filter((e) => e.event.split("|")[0] === "checkpoints");
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(checkpoints.every((e) => "values" in (e.data as Fields) && "checkpoint" in (e.data as Fields))).toBe(true);
  });

  it("streams the tools mode: a tool call's start and end, under the tool call's id", async () => {
    const threadId = await newThread(storage);
    const { events } = await engine.streamRun(
      { assistant_id: "tool-caller", input: { city: "Porto" }, stream_mode: ["tools"] },
      { threadId },
    );
    const tools = (await collect(events)).filter((e) => e.event === "tools").map((e) => e.data as Fields);
    expect(tools).toEqual([
      { event: "on_tool_start", toolCallId: "call-1", name: "get_weather", input: expect.anything() },
      expect.objectContaining({ event: "on_tool_end", toolCallId: "call-1", name: "get_weather" }),
    ]);
    expect(tools[1].output).toMatchObject({ content: "sunny in Porto", tool_call_id: "call-1", type: "tool" });

    const failed = await engine.streamRun(
      { assistant_id: "tool-caller", input: { city: "nowhere" }, stream_mode: ["tools"] },
      { threadId },
    );
    const error = (await collect(failed.events)).find((e) => e.event === "tools" && (e.data as Fields).event === "on_tool_error");
    expect(error?.data).toEqual({
      event: "on_tool_error",
      toolCallId: "call-2",
      name: "get_forecast",
      error: { error: "Error", message: "weather service down" },
    });
  });
});
