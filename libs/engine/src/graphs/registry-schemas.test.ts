import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotation, StateGraph } from "@langchain/langgraph";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { loadLangGraphConfig } from "../config/langgraph-config.js";
import { GraphRegistry } from "./registry.js";
import { NO_SCHEMAS } from "./schemas/types.js";

const fixture = resolve(import.meta.dirname, "schemas/fixtures/langgraph.json");
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

  it("gives null schemas to a graph without source, and subgraph-style channel names on request", async () => {
    expect(await registry.schemas("in_process", inProcess)).toEqual(NO_SCHEMAS);
    expect((await registry.subgraphSchemas("in_process", inProcess)).state).toEqual({ type: "object", properties: { topic: {} } });
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
});
