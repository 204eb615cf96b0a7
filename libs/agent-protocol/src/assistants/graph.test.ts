import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { StateGraph } from "@langchain/langgraph";
import type { TestServer } from "../testing/index.js";
import { expectHttpError, httpDrivers, openServer, rawJson } from "../meta/test-support.js";

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

  it("reports typed schemas for a zod state, channel schemas for an Annotation state", async () => {
    const { client } = server;
    const typed = await client.assistants.getSchemas("typed");
    expect(typed.graph_id).toBe("typed");
    expect(typed.state_schema).toMatchObject({ type: "object", properties: { topic: { type: "string" }, count: { type: "number" } } });
    expect(typed.input_schema).toMatchObject({ properties: { topic: { type: "string" } } });

    const approval = await client.assistants.getSchemas("approval");
    expect(approval).toMatchObject({
      graph_id: "approval",
      state_schema: { type: "object", properties: { request: {}, decision: {} } },
      input_schema: { type: "object", properties: { request: {}, decision: {} } },
    });
    expect(approval).toHaveProperty("config_schema");
    expect(approval).toHaveProperty("context_schema");
  });

  it("lists subgraphs by namespace, and 404s unknown assistants", async () => {
    const { client } = server;
    const subgraphs = await client.assistants.getSubgraphs("parent");
    expect(Object.keys(subgraphs)).toEqual(["child"]);
    // The official server's shape here: `state`, `input`, `output`, `config` (no graph_id, no `*_schema`).
    expect(Object.keys(subgraphs.child).sort()).toEqual(["config", "input", "output", "state"]);
    expect(subgraphs.child).toMatchObject({ state: { type: "object", properties: { messages: {} } } });
    expect(Object.keys(await client.assistants.getSubgraphs("parent", { namespace: "child", recurse: true }))).toEqual(["child"]);
    expect(await client.assistants.getSubgraphs("echo")).toEqual({});
    expect(await client.assistants.getSubgraphs("parent", { namespace: "nope" })).toEqual({});

    await expectHttpError(client.assistants.getGraph(crypto.randomUUID()), 404);
    await expectHttpError(client.assistants.getSchemas("not-a-graph"), 404);
    await expectHttpError(client.assistants.getSubgraphs(crypto.randomUUID()), 404);
  });
});
