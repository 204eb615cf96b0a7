import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { systemAssistantId } from "@agent-server/engine";
import { mcpClient, resultText, startMcpServer, type McpTestServer } from "../../test/support/mcp-clients.js";
import { PERMISSIVE_INPUT_SCHEMA } from "./tools.js";

/**
 * /mcp through the official SDK client (stateless mode, the default) on SQLite: one tool per assistant,
 * calls that run it on a new or an existing thread, and every way a call fails as a tool error.
 */
let mcp: McpTestServer;
let client: Client;

beforeAll(async () => {
  mcp = await startMcpServer();
  ({ client } = await mcpClient(mcp.base));
});

afterAll(async () => {
  await client?.close();
  await mcp?.dispose();
});

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });

describe("MCP tools", () => {
  it("lists one tool per assistant: named after it, described, with the graph's input schema (permissive when unreadable)", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(["echo", "approval", "slow", "failing", "parent", "whoami", "tool-caller", "chat", "typed"]),
    );
    expect(byName.get("echo")).toMatchObject({
      title: "echo",
      description: 'Runs the LangGraph graph "echo".',
      inputSchema: PERMISSIVE_INPUT_SCHEMA,
      _meta: { "langgraph/assistant_id": systemAssistantId("echo"), "langgraph/graph_id": "echo" },
    });
    expect(byName.get("typed")!.inputSchema).toMatchObject({
      type: "object",
      properties: { question: { type: "string", description: "What to ask" }, answer: { type: "string" } },
      additionalProperties: false,
    });
  });

  it("names assistants created later by their sanitized names, disambiguated by id, with their own descriptions", async () => {
    const helper = await mcp.server.client.assistants.create({
      graphId: "echo",
      name: "Echo helper (v2)!",
      description: "Repeats, politely",
    });
    const twin = await mcp.server.client.assistants.create({ graphId: "typed", name: "echo" });
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    const twinName = `echo_${twin.assistant_id.replace(/-/g, "").slice(0, 8)}`;
    expect(names).toContain("Echo_helper_v2");
    // The graph's system assistant came first and keeps "echo".
    expect(tools.find((tool) => tool.name === "echo")!._meta).toMatchObject({ "langgraph/assistant_id": systemAssistantId("echo") });
    expect(tools.find((tool) => tool.name === twinName)).toMatchObject({
      title: "echo",
      _meta: { "langgraph/assistant_id": twin.assistant_id },
    });
    expect(tools.find((tool) => tool.name === "Echo_helper_v2")).toMatchObject({
      description: "Repeats, politely",
      title: "Echo helper (v2)!",
    });
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);

    const reply = await client.callTool({ name: "Echo_helper_v2", arguments: say("hi there") });
    expect(resultText(reply)).toBe("echo: hi there");
    await mcp.server.client.assistants.delete(helper.assistant_id);
    await mcp.server.client.assistants.delete(twin.assistant_id);
  });

  it("calls echo on a new thread: the reply as text, the final values and the thread in structuredContent and _meta", async () => {
    const result = await client.callTool({ name: "echo", arguments: say("hello") });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe("echo: hello");
    const structured = result.structuredContent as {
      thread_id: string;
      run_id: string;
      values: { messages: Array<Record<string, unknown>> };
    };
    expect(structured.values.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "hello"],
      ["ai", "echo: hello"],
    ]);
    expect(result._meta).toEqual({ "langgraph/thread_id": structured.thread_id, "langgraph/run_id": structured.run_id });
    const run = await mcp.server.client.runs.get(structured.thread_id, structured.run_id);
    expect(run).toMatchObject({ status: "success", assistant_id: systemAssistantId("echo") });
    // What the HTTP API serializes for the thread is what the tool answered.
    expect((await mcp.server.client.threads.get(structured.thread_id)).values).toEqual(structured.values);
  });

  it("runs on an existing thread named in _meta, and a second call continues the conversation", async () => {
    const first = await client.callTool({ name: "echo", arguments: say("one") });
    const threadId = (first._meta as Record<string, string>)["langgraph/thread_id"];
    const second = await client.callTool({ name: "echo", arguments: say("two"), _meta: { "langgraph/thread_id": threadId } });
    expect(resultText(second)).toBe("echo: two");
    expect((second._meta as Record<string, string>)["langgraph/thread_id"]).toBe(threadId);
    const messages = (second.structuredContent as { values: { messages: Array<{ content: string }> } }).values.messages;
    expect(messages.map((m) => m.content)).toEqual(["one", "echo: one", "two", "echo: two"]);
    expect(await mcp.server.client.runs.list(threadId)).toHaveLength(2);
  });

  it("refuses arguments that do not fit the input schema as a tool error, before any thread or run exists", async () => {
    const threadsBefore = await mcp.server.storage.threads.count({});
    for (const args of [{ question: 42 }, { question: "ok", extra: true }]) {
      const result = await client.callTool({ name: "typed", arguments: args });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/^Invalid arguments for tool "typed": /);
    }
    expect(resultText(await client.callTool({ name: "typed", arguments: { question: 42 } }))).toContain("question must be string");
    expect(await mcp.server.storage.threads.count({})).toBe(threadsBefore);
    const ok = await client.callTool({ name: "typed", arguments: { question: "why" } });
    expect(resultText(ok)).toBe(JSON.stringify({ question: "why", answer: "answer to why" }));
  });

  it("answers an unknown tool, an unknown thread, a malformed thread id and a failing graph as tool errors", async () => {
    const unknownTool = await client.callTool({ name: "nope", arguments: {} });
    expect(unknownTool).toMatchObject({ isError: true });
    expect(resultText(unknownTool)).toBe('Unknown tool "nope": tools/list names the tools you may call.');

    const threadId = crypto.randomUUID();
    const unknownThread = await client.callTool({ name: "echo", arguments: say("x"), _meta: { "langgraph/thread_id": threadId } });
    expect(unknownThread.isError).toBe(true);
    expect(resultText(unknownThread)).toBe(`Thread "${threadId}" not found.`);

    const badId = await client.callTool({ name: "echo", arguments: say("x"), _meta: { "langgraph/thread_id": 7 } });
    expect(resultText(badId)).toBe('_meta "langgraph/thread_id" must be a thread id (a string), got 7.');

    const failed = await client.callTool({ name: "failing", arguments: say("x") });
    expect(failed.isError).toBe(true);
    expect(resultText(failed)).toBe("The run failed: Error: graph failed on purpose");
    const failedRun = (failed._meta as Record<string, string>)["langgraph/run_id"];
    const failedThread = (failed._meta as Record<string, string>)["langgraph/thread_id"];
    expect((await mcp.server.client.runs.get(failedThread, failedRun)).status).toBe("error");
  });

  it("reports an interrupt as a result with the thread and the value; resuming through the HTTP API finishes the run", async () => {
    const asked = await client.callTool({ name: "approval", arguments: { request: "deploy" } });
    expect(asked.isError).toBeFalsy();
    const structured = asked.structuredContent as { thread_id: string; interrupts: Array<{ id: string; value: unknown }> };
    expect(structured.interrupts).toEqual([{ id: expect.any(String), value: { question: "approve deploy?" } }]);
    const text = resultText(asked);
    expect(text).toContain(`The run stopped at an interrupt and is waiting for input on thread ${structured.thread_id}.`);
    expect(text).toContain('{"question":"approve deploy?"}');
    expect(text).toContain(`POST /threads/${structured.thread_id}/runs`);
    expect((await mcp.server.client.threads.get(structured.thread_id)).status).toBe("interrupted");

    const resumed = await mcp.server.client.runs.wait(structured.thread_id, "approval", { command: { resume: "yes" } });
    expect(resumed).toMatchObject({ request: "deploy", decision: "yes" });
    expect((await mcp.server.client.threads.get(structured.thread_id)).status).toBe("idle");
  });

  it("resumes an interrupt with _meta langgraph/resume on the thread; refuses a resume without a waiting thread", async () => {
    const asked = await client.callTool({ name: "approval", arguments: { request: "ship" } });
    const threadId = (asked._meta as Record<string, string>)["langgraph/thread_id"];
    const resumed = await client.callTool({
      name: "approval",
      arguments: {},
      _meta: { "langgraph/thread_id": threadId, "langgraph/resume": "approved" },
    });
    expect(resumed.isError).toBeFalsy();
    expect((resumed.structuredContent as { values: unknown }).values).toEqual({ request: "ship", decision: "approved" });
    expect(resultText(resumed)).toBe(JSON.stringify({ request: "ship", decision: "approved" }));

    const again = await client.callTool({ name: "approval", _meta: { "langgraph/thread_id": threadId, "langgraph/resume": "twice" } });
    expect(again.isError).toBe(true);
    expect(resultText(again)).toBe(`Thread "${threadId}" is not waiting at an interrupt (its status is idle): nothing to resume.`);
    const both = await client.callTool({
      name: "approval",
      arguments: { request: "x" },
      _meta: { "langgraph/thread_id": threadId, "langgraph/resume": "y" },
    });
    expect(resultText(both)).toMatch(/^Pass either arguments/);
    const noThread = await client.callTool({ name: "approval", _meta: { "langgraph/resume": "y" } });
    expect(resultText(noThread)).toBe('_meta "langgraph/resume" needs _meta "langgraph/thread_id": the thread to resume.');
  });
});

describe("MCP tools chosen by langgraph.json mcp.assistants", () => {
  it("offers only the listed assistants (graph names or ids), in the listed order; others are unknown tools", async () => {
    const other = await startMcpServer({ assistants: ["typed", systemAssistantId("echo"), "no-such-graph"] });
    const { client: listed } = await mcpClient(other.base);
    try {
      expect((await listed.listTools()).tools.map((tool) => tool.name)).toEqual(["typed", "echo"]);
      expect(resultText(await listed.callTool({ name: "echo", arguments: say("in") }))).toBe("echo: in");
      const slow = await listed.callTool({ name: "slow", arguments: {} });
      expect(slow.isError).toBe(true);
      expect(resultText(slow)).toMatch(/^Unknown tool "slow"/);
    } finally {
      await listed.close();
      await other.dispose();
    }
  });
});

describe("MCP tools/list pages", () => {
  it("pages past 100 tools with nextCursor, and every tool is listed once", async () => {
    const many = await startMcpServer();
    const { client: paging } = await mcpClient(many.base);
    try {
      for (let i = 0; i < 100; i++)
        await many.server.storage.assistants.create({ assistant_id: crypto.randomUUID(), graph_id: "echo", name: `bulk-${i}` });
      const first = await paging.listTools();
      expect(first.tools).toHaveLength(100);
      expect(first.nextCursor).toBe("100");
      const second = await paging.listTools({ cursor: first.nextCursor });
      expect(second.nextCursor).toBeUndefined();
      const names = [...first.tools, ...second.tools].map((tool) => tool.name);
      expect(names).toHaveLength(109);
      expect(new Set(names).size).toBe(109);
    } finally {
      await paging.close();
      await many.dispose();
    }
  });
});
