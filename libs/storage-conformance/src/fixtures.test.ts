import { describe, expect, it } from "vitest";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph-checkpoint";
import { toWireJson, type Storage } from "@agent-server/core";
import { awkwardValue, createHarness, type ConformanceFactory } from "./harness.js";
import { checkpointNs, listCheckpoints, runGraph, runIdOf } from "./graph.js";
import { pushConfigs } from "./push-configs.js";
import { results } from "./results.js";

// Self-tests of the suite's own fixtures and harness (the suite itself runs in each driver's package).

describe("awkwardValue", () => {
  it("wire-normalizes to what the JSON columns must return", () => {
    const wire = toWireJson(awkwardValue()) as Record<string, unknown>;
    expect(wire.date).toBe("2024-02-29T12:34:56.789Z");
    expect(wire.nul).toBe("a\u0000b");
    expect(wire.huge).toBe(1e21);
    expect((wire.big as string).length).toBe(1024 * 1024);
    expect(JSON.parse(JSON.stringify(wire))).toEqual(wire);
  });
});

describe("harness", () => {
  const closed: string[] = [];
  let counter = 0;
  const fake = (name: string) => ({ kind: name, close: async () => void closed.push(name) }) as unknown as Storage;
  const factory: ConformanceFactory = {
    create: async () => fake(`d${++counter}`),
    sibling: async (s) => fake(`${s.kind}-sibling`),
    reopen: async (s) => {
      await s.close();
      return fake(`${s.kind}-reopened`);
    },
  };
  const h = createHarness(factory);

  it("opens drivers", async () => {
    const s = await h.open();
    await h.sibling(s);
    await h.reopen(s);
    expect(h.hasSibling && h.hasReopen).toBe(true);
  });

  it("closed each driver exactly once after the previous test, newest first", () => {
    expect(closed).toEqual(["d1", "d1-reopened", "d1-sibling"]);
  });
});

describe("LangGraph facts the suite relies on", () => {
  const plain = () => ({ checkpointer: new MemorySaver(), langgraphStore: new InMemoryStore() }) as unknown as Storage;

  it("the test graph writes checkpoints in the root and a subgraph namespace", async () => {
    const s = plain();
    expect(await runGraph(s, "t", "r1", "one")).toEqual({ log: ["one", "step", "inner"], count: 1 });
    const namespaces = new Set((await listCheckpoints(s, "t")).map(checkpointNs));
    expect(namespaces.has("")).toBe(true);
    expect([...namespaces].some((ns) => ns.startsWith("child:"))).toBe(true);
  });

  it("a stock saver does NOT record configurable.run_id in checkpoint metadata (drivers must add it in put)", async () => {
    const s = plain();
    await runGraph(s, "t", "r1", "one");
    for (const tuple of await listCheckpoints(s, "t")) expect(runIdOf(tuple)).toBeUndefined();
  });
});

describe("optional parts declared by a driver that lacks them", () => {
  // The blocks of a declared part reach the driver only through these accessors: a missing method fails
  // the test naming what to do, instead of the check being skipped.
  const bare = { kind: "bare", runs: { get: async () => null } } as unknown as Storage;
  const half = { kind: "half", runs: { recordResult: async () => undefined } } as unknown as Storage;

  it("results: a driver without both result methods fails loudly", () => {
    expect(() => results(bare)).toThrow(/driver "bare" lacks RunRepo.recordResult\/getResult.*declare \{ results: false \}/);
    expect(() => results(half)).toThrow(/driver "half" lacks/);
  });

  it("push configs: a driver without Storage.pushConfigs fails loudly", () => {
    expect(() => pushConfigs(bare)).toThrow(/driver "bare" lacks Storage.pushConfigs.*declare \{ pushConfigs: false \}/);
  });
});
