import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateGraph, MessagesAnnotation } from "@langchain/langgraph";
import { echoGraph, newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, raw, runDrivers } from "../../test/support/runs.js";

/**
 * `@langchain/langgraph-sdk` 1.15 percent-encodes every id and namespace it puts in a path
 * (`encodePathSegment`): graph names used as assistant ids with `:`, `|`, `/`, `%`, spaces or non-ASCII
 * letters, and nested subgraph namespaces (`outer|inner`) must reach their routes decoded once, and
 * thread and run ids (UUIDs, which encoding leaves as they are) must keep routing.
 */

const inner = new StateGraph(MessagesAnnotation).addNode("inner", echoGraph).addEdge("__start__", "inner").compile();
const deepGraph = new StateGraph(MessagesAnnotation).addNode("outer", inner).addEdge("__start__", "outer").compile();
const NAMES = ["team:alpha|beta", "my graph", "a/b", "100%", "ünïcode", "x?y#z&w=1"];

describe.each(runDrivers)("percent-encoded path segments ($name)", (driver) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    for (const name of NAMES) server.engine.registry.register(name, deepGraph);
    await server.engine.registry.ensureSystemAssistants(server.storage);
  });
  afterAll(() => server.close());

  it("routes graph names with reserved characters as assistant ids, in every assistants path and in runs", async () => {
    const { client } = server;
    for (const name of NAMES) {
      expect((await client.assistants.get(name)).graph_id, name).toBe(name);
      expect(
        (await client.assistants.getGraph(name)).nodes.map((n) => n.id),
        name,
      ).toContain("outer");
      expect((await client.assistants.getSchemas(name)).graph_id, name).toBe(name);
      const thread = await newThread(server.storage);
      const values = (await client.runs.wait(thread, name, { input: hello })) as { messages: Array<{ content: string }> };
      expect(values.messages.at(-1)?.content, name).toBe("echo: hi");
    }
    // Nested namespaces keep their `|` (encoded %7C on the wire): one path segment, not two.
    const nested = await client.assistants.getSubgraphs("team:alpha|beta", { namespace: "outer|inner", recurse: true });
    expect(Object.keys(nested)).toEqual(["outer|inner"]);
    expect(Object.keys(await client.assistants.getSubgraphs("team:alpha|beta", { namespace: "outer" }))).toEqual(["outer"]);
    // Encoded once means decoded once: "%2525" is the id "%25", which does not exist.
    expect((await raw(`${server.url}/assistants/${encodeURIComponent(encodeURIComponent("100%"))}`, "GET")).status).toBe(404);
  });

  it("routes run paths with encoded ids: get, join, join stream, and the thread's state and history", async () => {
    const { client } = server;
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "my graph", { input: hello, streamResumable: true });
    await client.runs.join(thread, run.run_id);
    expect((await client.runs.get(thread, run.run_id)).status).toBe("success");
    const parts: Array<{ event: string }> = [];
    for await (const part of client.runs.joinStream(thread, run.run_id, { lastEventId: "-1" })) parts.push(part);
    expect(parts[0]?.event).toBe("metadata");
    for await (const part of client.runs.joinStream(null, run.run_id, { lastEventId: "-1" })) parts.push(part);
    expect(parts.filter((p) => p.event === "metadata")).toHaveLength(2);
    const state = await client.threads.getState(thread);
    expect((await client.threads.getState(thread, state.checkpoint.checkpoint_id!)).checkpoint).toEqual(state.checkpoint);
    expect((await client.threads.getHistory(thread, { limit: 1 }))[0]?.checkpoint).toEqual(state.checkpoint);
    // Upper-case hex written as percent escapes is the same UUID once decoded.
    const escaped = [...thread].map((ch) => (ch === "-" ? "%2D" : ch)).join("");
    expect((await raw(`${server.url}/threads/${escaped}/runs/${run.run_id}`, "GET")).status).toBe(200);
  });
});
