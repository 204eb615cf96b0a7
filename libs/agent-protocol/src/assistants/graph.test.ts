import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { StateGraph } from "@langchain/langgraph";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer, rawJson } from "../../test/support/http.js";
import { drivers } from "@agent-server/testing";

/** A graph whose state is a zod object, so typed schemas can be derived at run time. */
const typedGraph = new StateGraph(z.object({ topic: z.string(), count: z.number() }))
  .addNode("measure", (state) => ({ count: state.topic.length }))
  .addEdge("__start__", "measure")
  .compile();

/** A parent whose subgraph has two nodes: LangGraph only draws a subgraph inline when it has more than one. */
const twoStep = new StateGraph(z.object({ topic: z.string() }))
  .addNode("a", () => ({}))
  .addNode("b", () => ({}))
  .addEdge("__start__", "a")
  .addEdge("a", "b")
  .compile();
const nestedGraph = new StateGraph(z.object({ topic: z.string() })).addNode("inner", twoStep).addEdge("__start__", "inner").compile();

describe.each(httpDrivers)("assistant graph introspection on $name", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(driver);
    server.engine.registry.register("typed", typedGraph);
    server.engine.registry.register("nested", nestedGraph);
    await server.engine.registry.ensureSystemAssistants(server.storage);
  });
  afterAll(() => server.close());

  it("draws the graph as nodes and edges, with subgraphs expanded under xray", async () => {
    const { client } = server;
    const graph = await client.assistants.getGraph("echo");
    expect(graph.nodes.map((n) => n.id)).toEqual(["__start__", "echo", "__end__"]);
    expect(graph.edges).toContainEqual(expect.objectContaining({ source: "__start__", target: "echo" }));

    const flat = await client.assistants.getGraph("nested");
    expect(flat.nodes.map((n) => n.id)).toEqual(["__start__", "inner", "__end__"]);
    const xray = await client.assistants.getGraph("nested", { xray: true });
    expect(xray.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["inner:a", "inner:b"]));
    expect(xray.edges).toContainEqual(expect.objectContaining({ source: "inner:a", target: "inner:b" }));
    const depth = await client.assistants.getGraph("nested", { xray: 1 });
    expect(depth.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["inner:a", "inner:b"]));
    const none = await client.assistants.getGraph("nested", { xray: false });
    expect(none.nodes.map((n) => n.id)).not.toContain("inner:a");

    const bad = await rawJson(`${server.url}/assistants/parent/graph?xray=sideways`, "GET");
    expect(bad.status).toBe(422);
    expect((bad.json as { detail: string }).detail).toMatch(/^xray/);
  });

  it("reports typed schemas for a zod state, null for an Annotation state without source", async () => {
    const { client } = server;
    const typed = await client.assistants.getSchemas("typed");
    expect(typed.graph_id).toBe("typed");
    expect(typed.state_schema).toMatchObject({ type: "object", properties: { topic: { type: "string" }, count: { type: "number" } } });
    expect(typed.input_schema).toMatchObject({ properties: { topic: { type: "string" } } });

    // Registered in process: no TypeScript file to read its Annotation types from.
    expect(await client.assistants.getSchemas("approval")).toEqual({
      graph_id: "approval",
      input_schema: null,
      output_schema: null,
      state_schema: null,
      config_schema: null,
      context_schema: null,
    });
  });

  it("lists subgraphs by namespace, and 404s unknown assistants", async () => {
    const { client } = server;
    const subgraphs = await client.assistants.getSubgraphs("parent");
    expect(Object.keys(subgraphs)).toEqual(["child"]);
    // The official JS server's keys (`state`, `input`, `output`, `config`) and the SDK's GraphSchema keys.
    expect(Object.keys(subgraphs.child).sort()).toEqual([
      "config",
      "config_schema",
      "context_schema",
      "graph_id",
      "input",
      "input_schema",
      "output",
      "output_schema",
      "state",
      "state_schema",
    ]);
    expect(subgraphs.child.state_schema).toEqual((subgraphs.child as unknown as { state: unknown }).state);
    expect(subgraphs.child).toMatchObject({ state: { type: "object", properties: { messages: {} } } });
    expect(Object.keys(await client.assistants.getSubgraphs("parent", { namespace: "child", recurse: true }))).toEqual(["child"]);
    expect(await client.assistants.getSubgraphs("echo")).toEqual({});
    expect(await client.assistants.getSubgraphs("parent", { namespace: "nope" })).toEqual({});

    await expectHttpError(client.assistants.getGraph(crypto.randomUUID()), 404);
    await expectHttpError(client.assistants.getSchemas("not-a-graph"), 404);
    await expectHttpError(client.assistants.getSubgraphs(crypto.randomUUID()), 404);
  });
});

/** Schemas do not depend on the storage: one driver is enough, and extraction from source costs seconds. */
describe("assistant schemas of graphs loaded from TypeScript files", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(drivers.find((d) => d.name === "memory")!);
    const graphs = {
      annotation: "./schema-graphs.mts:annotation",
      zod_registry: "./schema-graphs.mts:zodRegistry",
      state_schema: "./schema-graphs.mts:stateSchema",
    };
    await server.engine.registry.load(graphs, resolve(import.meta.dirname, "fixtures"));
    await server.engine.registry.ensureSystemAssistants(server.storage);
  });
  afterAll(() => server.close());

  it("reads an Annotation.Root graph's types from its source: messages, literal unions, the context schema", async () => {
    const { client } = server;
    const assistant = await client.assistants.create({ graphId: "annotation" });
    const schemas = await client.assistants.getSchemas(assistant.assistant_id);
    const model = { type: "string", enum: ["anthropic", "openai"] };
    expect(schemas.state_schema).toMatchObject({
      type: "object",
      properties: {
        messages: { type: "array", items: { $ref: "#/definitions/BaseMessage<MessageStructure<MessageToolSet>,MessageType>" } },
        model,
      },
      definitions: { "BaseMessage<MessageStructure<MessageToolSet>,MessageType>": { oneOf: [{ $ref: "#/definitions/RemoveMessage" }] } },
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    expect(schemas.input_schema).toMatchObject({ properties: { model } });
    expect(schemas.output_schema).toMatchObject({ properties: { model } });
    // LangGraph.js cannot tell a context schema from a config schema: both are reported.
    expect(schemas.config_schema).toEqual({ type: "object", properties: { model }, $schema: "http://json-schema.org/draft-07/schema#" });
    expect(schemas.context_schema).toEqual(schemas.config_schema);
  }, 120_000);

  it("reads a subgraph's types from the same source, under both the SDK's and the official JS server's keys", async () => {
    const subgraphs = await server.client.assistants.getSubgraphs("annotation");
    expect(Object.keys(subgraphs)).toEqual(["review"]);
    const verdict = { type: "object", properties: { verdict: { type: "string", enum: ["approve", "reject"] } } };
    expect(subgraphs.review).toMatchObject({ graph_id: "annotation", state_schema: verdict, state: verdict, input: verdict });
    const review = subgraphs.review as unknown as Record<string, unknown>;
    for (const key of ["input", "output", "config"]) expect(review[key]).toEqual(review[`${key}_schema`]);
  }, 120_000);

  it("reads zod registry metadata and StateSchema fields at run time, jsonSchemaExtra included", async () => {
    const { client } = server;
    const zod = await client.assistants.getSchemas("zod_registry");
    expect(zod.state_schema).toMatchObject({ type: "object", properties: { messages: { langgraph_type: "messages" } } });
    const stateSchema = await client.assistants.getSchemas("state_schema");
    expect(stateSchema.state_schema).toMatchObject({
      type: "object",
      properties: { messages: { langgraph_type: "messages" }, count: { type: "number" } },
    });
  });
});
