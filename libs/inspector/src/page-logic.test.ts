import { describe, expect, it } from "vitest";

/**
 * The page's pure helpers, loaded as the browser loads them (plain ES modules; preact, htm and dagre
 * resolve from node_modules as the import map resolves them in the page).
 */
const load = (name: string): Promise<any> => import(/* @vite-ignore */ new URL(`../assets/${name}`, import.meta.url).href);

describe("the page's helpers", () => {
  it("folds xray subgraph nodes into their parent and keeps conditional edges dashed", async () => {
    const { foldGraph } = await load("graph-view.js");
    const graph = {
      nodes: [{ id: "__start__" }, { id: "classify" }, { id: "write:draft" }, { id: "write:polish" }, { id: "skip" }],
      edges: [
        { source: "__start__", target: "classify", conditional: false },
        { source: "classify", target: "write:draft", conditional: true },
        { source: "write:draft", target: "write:polish", conditional: false },
        { source: "classify", target: "skip", conditional: true },
      ],
    };
    const folded = foldGraph(graph, true);
    expect(folded.nodes.map((n: { id: string }) => n.id)).toEqual(["__start__", "classify", "write", "skip"]);
    expect(folded.nodes.find((n: { id: string }) => n.id === "write").subgraph).toBe(true);
    expect(folded.edges).toEqual([
      { source: "__start__", target: "classify", conditional: false, label: undefined },
      { source: "classify", target: "write", conditional: true, label: undefined },
      { source: "classify", target: "skip", conditional: true, label: undefined },
    ]);
    expect(foldGraph(graph, false).edges).toHaveLength(4);
    expect(foldGraph(undefined, true)).toEqual({ nodes: [], edges: [] });
  });

  it("lists a run's remote A2A calls from its updates, its interrupts and its answers", async () => {
    const { remoteCalls } = await load("remote-calls.js");
    const sent = { agent: "billing", url: "http://b/a2a/billing", taskId: "t1", contextId: "c1", messageId: "m1", state: "working" };
    const events = [
      { event: "metadata", data: { run_id: "r" } },
      { event: "updates", data: { "a2a.send": sent } },
      { event: "updates", data: { "a2a.wait": { taskId: "t1", state: "input-required", text: "Which card?", parts: [] } } },
    ];
    expect(remoteCalls(events)).toEqual([
      { agent: "billing", url: "http://b/a2a/billing", taskId: "t1", contextId: "c1", state: "input-required" },
    ]);
    const question = {
      value: { type: "a2a.auth_required", agent: "search", url: "http://s", taskId: "t2", contextId: "c2", question: "" },
    };
    expect(remoteCalls([], [], [question])).toEqual([
      { agent: "search", url: "http://s", taskId: "t2", contextId: "c2", state: "auth-required" },
    ]);
    const answered = [{ type: "ai", content: "paid", response_metadata: { a2a: { taskId: "t1", state: "completed" } } }];
    expect(remoteCalls(events, answered)[0].state).toBe("completed");
    expect(remoteCalls([{ event: "updates", data: { relay: { messages: [] } } }])).toEqual([]);
  });

  it("checks an agent card against A2A v1.0's required fields", async () => {
    const { checkCard } = await load("a2a.js");
    const good = {
      name: "echo",
      description: "d",
      version: "1",
      supportedInterfaces: [{ url: "http://localhost/a2a/echo", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: {},
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "s", name: "s", description: "s", tags: [] }],
    };
    expect(checkCard(good).every((c: { pass: boolean }) => c.pass)).toBe(true);
    const bad = checkCard({ ...good, supportedInterfaces: [{ url: "/relative", protocolBinding: "SOAP" }], skills: [{ id: "s" }] });
    expect(bad.filter((c: { pass: boolean }) => !c.pass).map((c: { name: string }) => c.name)).toEqual([
      "supportedInterfaces[0].url is an absolute URL",
      "supportedInterfaces[0].protocolBinding is one of JSONRPC, HTTP+JSON, GRPC",
      "supportedInterfaces[0].protocolVersion is set",
      "skills[0] has id, name, description and tags",
    ]);
    expect(checkCard(null).some((c: { pass: boolean }) => c.pass)).toBe(false);
  });

  it("reads artifact text, diffs checkpoint values, merges streamed message chunks", async () => {
    const { artifactText } = await load("a2a.js");
    expect(artifactText({ artifacts: [{ parts: [{ text: "echo: hi" }, { data: { x: 1 } }] }, { parts: [{ data: { y: 2 } }] }] })).toBe(
      'echo: hi\n{"y":2}',
    );
    const { diffValues } = await load("threads.js");
    expect(diffValues({ a: 1, b: [1], c: 3 }, { a: 1, b: [1, 2], d: 4 })).toEqual([
      { key: "b", before: [1], after: [1, 2], added: false, removed: false },
      { key: "c", before: 3, after: undefined, added: false, removed: true },
      { key: "d", before: undefined, after: 4, added: true, removed: false },
    ]);
    const { applyMessageChunk } = await load("chat.js");
    let list = [{ id: "h", type: "human", content: "hi" }];
    list = applyMessageChunk(list, { id: "a", type: "AIMessageChunk", content: "ec" });
    list = applyMessageChunk(list, { id: "a", type: "AIMessageChunk", content: "ho" });
    expect(list.map((m: { content: string }) => m.content)).toEqual(["hi", "echo"]);
    // As the server sends them: type "ai", with tool_call_chunks.
    list = applyMessageChunk(list, { id: "a", type: "ai", content: ":", tool_call_chunks: [] });
    expect(list.map((m: { content: string }) => m.content)).toEqual(["hi", "echo:"]);
    list = applyMessageChunk(list, { id: "a", type: "ai", content: "echo: hi" });
    expect(list.map((m: { content: string }) => m.content)).toEqual(["hi", "echo: hi"]);
  });
});
