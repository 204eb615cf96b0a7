import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { mcpClient, resultText, startMcpServer, type McpTestServer } from "../../test/support/mcp-clients.js";

/**
 * The two modes at the HTTP level (raw requests as any Streamable HTTP client sends them, and the SDK
 * client), what malformed requests get (MCP's own errors, never a 500), and /mcp in /openapi.json.
 */
let stateless: McpTestServer;
let session: McpTestServer;

beforeAll(async () => {
  [stateless, session] = await Promise.all([startMcpServer(), startMcpServer({ mode: "session" })]);
});

afterAll(async () => {
  await stateless?.dispose();
  await session?.dispose();
});

const ACCEPT = "application/json, text/event-stream";
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function post(base: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The JSON-RPC messages of an SSE response body. */
async function messages(response: Response): Promise<Array<Record<string, any>>> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, any>);
}

describe("MCP stateless mode", () => {
  it("answers initialize without a session, and any later request on its own", async () => {
    const init = await post(stateless.base, INITIALIZE);
    expect(init.status).toBe(200);
    expect(init.headers.get("mcp-session-id")).toBeNull();
    expect(init.headers.get("content-type")).toContain("text/event-stream");
    const [answer] = await messages(init);
    expect(answer!.result).toMatchObject({
      protocolVersion: "2025-11-25",
      serverInfo: { name: "agent-server", version: "test" },
      capabilities: { tools: { listChanged: false } },
      instructions: expect.stringContaining('_meta "langgraph/thread_id"'),
    });
    const list = await post(stateless.base, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect((await messages(list))[0]!.result.tools.map((t: { name: string }) => t.name)).toContain("echo");
  });

  it("answers an initialize with malformed params -32602, naming what is wrong", async () => {
    const bad = await post(stateless.base, { ...INITIALIZE, params: { ...INITIALIZE.params, clientInfo: [[]] } });
    expect((await messages(bad))[0]).toMatchObject({
      id: 0,
      error: { code: -32602, message: expect.stringContaining("Invalid params for initialize: params.clientInfo") },
    });
  });

  it("offers no session stream and no session to end: GET and DELETE answer 405", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const response = await fetch(`${stateless.base}/mcp`, { method, headers: { accept: "text/event-stream" } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
    // The SDK client takes the 405 as "no stream offered" and works on.
    const { client } = await mcpClient(stateless.base);
    expect(resultText(await client.callTool({ name: "echo", arguments: { messages: [{ role: "user", content: "a" }] } }))).toBe("echo: a");
    await client.close();
  });
});

describe("MCP session mode", () => {
  it("opens a session on initialize; later requests need its id; DELETE ends it", async () => {
    const init = await post(session.base, INITIALIZE);
    const sessionId = init.headers.get("mcp-session-id");
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const headers = { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-11-25" };
    expect((await post(session.base, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);

    const list = await post(session.base, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
    expect((await messages(list))[0]!.result.tools.map((t: { name: string }) => t.name)).toContain("echo");

    const without = await post(session.base, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(without.status).toBe(400);
    expect(await without.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining("Server not initialized") } });
    const unknown = await post(
      session.base,
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { ...headers, "mcp-session-id": crypto.randomUUID() },
    );
    expect(unknown.status).toBe(404);

    expect((await fetch(`${session.base}/mcp`, { method: "DELETE", headers })).status).toBe(200);
    expect((await post(session.base, { jsonrpc: "2.0", id: 4, method: "tools/list" }, headers)).status).toBe(404);
  });

  it("serves the SDK client: a session per client, ended by terminateSession", async () => {
    const { client, transport } = await mcpClient(session.base);
    const other = await mcpClient(session.base);
    expect(transport.sessionId).not.toBe(other.transport.sessionId);
    expect(resultText(await client.callTool({ name: "echo", arguments: { messages: [{ role: "user", content: "s" }] } }))).toBe("echo: s");
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    expect((await post(session.base, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": sessionId })).status).toBe(404);
    expect((await other.client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    await other.client.close();
  });

  it("closes sessions left idle, and when full the least recently used idle one; refuses when all are busy", async () => {
    const small = await startMcpServer({ mode: "session", sessions: { idleMs: 150, maxSessions: 2 } });
    try {
      const open = async () => (await post(small.base, INITIALIZE)).headers.get("mcp-session-id")!;
      const listWith = (id: string) => post(small.base, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": id });
      const idle = await open();
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await listWith(idle)).status).toBe(404);

      const first = await open();
      const second = await open();
      expect((await listWith(first)).status).toBe(200);
      const third = await open();
      // `second` was used least recently.
      expect((await listWith(second)).status).toBe(404);
      expect((await listWith(first)).status).toBe(200);
      expect((await listWith(third)).status).toBe(200);

      // Both sessions hold a stream open (in flight): no room for a third.
      const streams = [new AbortController(), new AbortController()];
      const held = await Promise.all(
        [first, third].map((id, i) =>
          fetch(`${small.base}/mcp`, { headers: { accept: "text/event-stream", "mcp-session-id": id }, signal: streams[i]!.signal }),
        ),
      );
      expect(held.map((r) => r.status)).toEqual([200, 200]);
      const refused = await post(small.base, INITIALIZE);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining("Too many MCP sessions") } });
      streams.forEach((s) => s.abort());
    } finally {
      await small.dispose();
    }
  });
});

describe.each([
  ["stateless", () => stateless],
  ["session", () => session],
] as const)("malformed MCP requests (%s mode)", (_mode, server) => {
  async function headersFor(): Promise<Record<string, string>> {
    const init = await post(server().base, INITIALIZE);
    const id = init.headers.get("mcp-session-id");
    return id ? { "mcp-session-id": id } : {};
  }

  it("answers them with MCP's own errors, never a 500", async () => {
    const { base } = server();
    const headers = await headersFor();
    const notJson = await post(base, "{not json", headers);
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    expect((await post(base, INITIALIZE, { accept: "application/json" })).status).toBe(406);
    expect((await post(base, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { ...headers, "content-type": "text/plain" })).status).toBe(
      415,
    );
    expect((await post(base, { hello: "world" }, headers)).status).toBe(400);

    const rpc = async (method: string, params?: unknown) =>
      (await messages(await post(base, { jsonrpc: "2.0", id: 7, method, params }, headers)))[0]!;
    expect(await rpc("tools/list", { cursor: "abc" })).toMatchObject({
      id: 7,
      error: { code: -32602, message: expect.stringContaining("Invalid cursor") },
    });
    expect(await rpc("tools/call", { arguments: {} })).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(await rpc("no/such/method")).toMatchObject({ id: 7, error: { code: -32601 } });
    const badArgs = await rpc("tools/call", { name: "echo", arguments: "not an object" });
    expect(badArgs).toMatchObject({ id: 7, error: { code: -32602, message: expect.stringContaining("params.arguments") } });
    // An envelope whose params are not an object is refused by the transport before any handler.
    const notAnEnvelope = await post(base, { jsonrpc: "2.0", id: 8, method: "ping", params: "x" }, headers);
    expect(notAnEnvelope.status).toBe(400);
    expect(await notAnEnvelope.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    expect(await rpc("ping")).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });
});

describe("/mcp in /openapi.json", () => {
  it("is listed under the MCP tag, and every other route is exactly what a server without MCP documents", async () => {
    type Doc = { paths: Record<string, Record<string, { tags?: string[] }>> };
    const withMcp = (await (await fetch(`${stateless.base}/openapi.json`)).json()) as Doc;
    const opened = await drivers.find((d) => d.name === "memory")!.open();
    const plain = await startTestServer(opened.storage);
    try {
      const without = (await (await fetch(`${plain.url.replace(/\/$/, "")}/openapi.json`)).json()) as Doc;
      expect(Object.keys(withMcp.paths["/mcp"]!).sort()).toEqual(["delete", "get", "post"]);
      for (const operation of Object.values(withMcp.paths["/mcp"]!)) expect(operation.tags).toEqual(["MCP"]);
      const { "/mcp": _mcp, ...rest } = withMcp.paths;
      expect(rest).toEqual(without.paths);
    } finally {
      await plain.close();
      await opened.dispose();
    }
  });
});
