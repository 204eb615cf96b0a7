import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotation, StateGraph } from "@langchain/langgraph";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { loadLangGraphConfig } from "../config/langgraph-config.js";
import { GraphRegistry } from "./registry.js";
import { NO_SCHEMAS } from "./schemas/types.js";

const fixture = resolve(import.meta.dirname, "../../test/fixtures/schemas/langgraph.json");
const inProcess = new StateGraph(Annotation.Root({ topic: Annotation<string>() }))
  .addNode("noop", () => ({}))
  .addEdge("__start__", "noop")
  .compile();

describe("GraphRegistry.schemas", () => {
  const storage = createMemoryStorage();
  const failures: string[][] = [];
  const extractions: string[][] = [];
  const registry = new GraphRegistry(storage, {
    onFailure: (graphIds) => failures.push(graphIds),
    onExtracted: (graphIds) => extractions.push(graphIds),
  });
  let cwd: string;

  beforeAll(async () => {
    const loaded = await loadLangGraphConfig(fixture);
    cwd = loaded.cwd;
    await registry.load(loaded.config.graphs, cwd);
    registry.register("in_process", inProcess);
  });
  afterAll(() => storage.close());

  it("reads Annotation.Root graphs' types from source in a worker, once per graph, graphs asked together in one run", async () => {
    const graph = await registry.get("annotation", {});
    const factoryGraph = await registry.get("annotation_factory", { configurable: { any: "config" } });
    const [annotation, fromFactory] = await Promise.all([
      registry.schemas("annotation", graph),
      registry.schemas("annotation_factory", factoryGraph),
    ]);
    expect(annotation.state).toMatchObject({ properties: { mode: { type: "string", enum: ["careful", "fast"] } } });
    expect(annotation.config).toMatchObject({ properties: { model_name: { type: "string" } } });
    expect(fromFactory).toEqual(annotation);
    // Cached: the same answer without another extraction.
    expect(await registry.schemas("annotation", graph)).toBe(annotation);
    expect(extractions).toEqual([["annotation", "annotation_factory"]]);
    expect(failures).toEqual([]);
  }, 120_000);

  it("reads zod metadata (jsonSchemaExtra) from the registry of the graph's own LangGraph module instance", async () => {
    const schemas = await registry.schemas("zod_registry", await registry.get("zod_registry", {}));
    expect(schemas.state).toMatchObject({
      type: "object",
      properties: { messages: { langgraph_type: "messages" }, count: { type: "number" } },
    });
  });

  it("reads subgraphs' types from the graph's source, by namespace; channel names where the source has none", async () => {
    await registry.load({ nested: "./nested-graph.mts:graph" }, cwd);
    const root = await registry.get("nested", {});
    const found: Record<string, unknown> = {};
    for await (const [namespace, subgraph] of root.getSubgraphsAsync(undefined, true)) {
      found[namespace] = (await registry.subgraphSchemas("nested", namespace, subgraph as typeof root)).state;
    }
    expect(found).toMatchObject({
      r_parent: { properties: { parent: { type: "string", enum: ["left", "right"] } } },
      "r_parent|p_child": { properties: { child: { type: "string", enum: ["one", "two"] } } },
    });
    // A namespace the source analysis did not find (here: asked under another name) falls back to channel names.
    const [, parent] = (await root.getSubgraphsAsync().next()).value!;
    expect((await registry.subgraphSchemas("nested", "elsewhere", parent as typeof root)).state).toEqual({
      type: "object",
      properties: { items: {}, parent: {} },
    });
  }, 120_000);

  it("gives null schemas to a graph without source, and subgraph-style channel names on request", async () => {
    expect(await registry.schemas("in_process", inProcess)).toEqual(NO_SCHEMAS);
    expect((await registry.subgraphSchemas("in_process", "any", inProcess)).state).toEqual({ type: "object", properties: { topic: {} } });
  });

  it("answers null when extraction times out, reports why, and tries again after retryAfterMs", async () => {
    const seen: { graphIds: string[]; message: string }[] = [];
    const impatient = new GraphRegistry(storage, {
      timeoutMs: 1,
      retryAfterMs: 20,
      onFailure: (graphIds, error) => seen.push({ graphIds, message: error.message }),
    });
    await impatient.load({ type_error: "./type-error-graph.mts:graph" }, cwd);
    const graph = await impatient.get("type_error", {});
    expect(await impatient.schemas("type_error", graph)).toEqual(NO_SCHEMAS);
    expect(seen).toEqual([{ graphIds: ["type_error"], message: "schema extraction timed out after 1 ms" }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(await impatient.schemas("type_error", graph)).toEqual(NO_SCHEMAS);
    expect(seen).toHaveLength(2);
  });

  it("stops a running extraction on shutdown: its graphs get null, nothing is reported as failed", async () => {
    const events: string[] = [];
    const stopping = new GraphRegistry(storage, {
      onExtracted: () => events.push("extracted"),
      onFailure: () => events.push("failed"),
    });
    await stopping.load({ type_error: "./type-error-graph.mts:graph" }, cwd);
    const graph = await stopping.get("type_error", {});
    const pending = stopping.schemas("type_error", graph);
    await new Promise((r) => setTimeout(r, 200)); // past the gathering window: the worker is running
    stopping.stopSchemaExtraction();
    expect(await pending).toEqual(NO_SCHEMAS);
    expect(await stopping.schemas("type_error", graph)).toEqual(NO_SCHEMAS);
    expect(events).toEqual([]);
  });
});
