import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as LangGraphClient } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { mcpClient, resultText, startMcpServer, type McpTestServer } from "../../test/support/mcp-clients.js";

/**
 * /mcp behind custom auth (the "resource owner" setup of the HTTP API's auth tests): assistants and
 * threads belong to whoever created them, so each user's tools are their own assistants and a thread
 * of one user cannot be used by another; handler denials come back as tool errors.
 */
const users = ["alice", "bob", "carol", "dave"];
const ownerAuth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !users.includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [`role:${token}`] };
  })
  .on("assistants:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
  })
  .on("assistants:search", ({ user }) => {
    if (user.identity === "carol") throw new HTTPException(403, { message: "carol may not list assistants" });
    return { owner: user.identity };
  })
  .on("assistants", ({ user }) => ({ owner: user.identity }))
  .on("threads:create", ({ value, user }) => {
    if (user.identity === "dave") throw new HTTPException(403, { message: "dave may not start threads" });
    value.metadata ??= {};
    value.metadata.owner = user.identity;
  })
  .on("threads", ({ user }) => ({ owner: user.identity }));

const servers: Record<"stateless" | "session", McpTestServer> = {} as never;

beforeAll(async () => {
  servers.stateless = await startMcpServer({}, { auth: ownerAuth });
  servers.session = await startMcpServer({ mode: "session" }, { auth: ownerAuth });
  for (const mcp of Object.values(servers)) {
    const as = (user: string) => new LangGraphClient({ apiUrl: mcp.base, defaultHeaders: { authorization: `Bearer ${user}` } });
    await as("alice").assistants.create({ graphId: "echo", name: "alice-echo" });
    await as("alice").assistants.create({ graphId: "whoami", name: "alice-whoami" });
    await as("bob").assistants.create({ graphId: "echo", name: "bob-echo" });
    await as("dave").assistants.create({ graphId: "echo", name: "dave-echo" });
  }
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((mcp) => mcp.dispose()));
});

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });

describe.each(["stateless", "session"] as const)("MCP with custom auth (%s mode)", (mode) => {
  it("requires authentication", async () => {
    const { base } = servers[mode];
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    await expect(mcpClient(base, { token: "mallory" })).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining("Invalid token"),
    });
  });

  it("lists each user's own assistants only; a user the search handler refuses has no tools", async () => {
    const names = async (token: string) => {
      const { client } = await mcpClient(servers[mode].base, { token });
      try {
        return (await client.listTools()).tools.map((tool) => tool.name).sort();
      } finally {
        await client.close();
      }
    };
    expect(await names("alice")).toEqual(["alice-echo", "alice-whoami"]);
    expect(await names("bob")).toEqual(["bob-echo"]);
    expect(await names("carol")).toEqual([]);
  });

  it("runs as the caller, on threads the caller owns; another user can neither call the tool nor use the thread", async () => {
    const { base, server } = servers[mode];
    const alice = (await mcpClient(base, { token: "alice" })).client;
    const bob = (await mcpClient(base, { token: "bob" })).client;
    try {
      const mine = await alice.callTool({ name: "alice-whoami", arguments: say("who?") });
      expect(resultText(mine)).toBe("alice");
      const threadId = (mine._meta as Record<string, string>)["langgraph/thread_id"];
      expect((await server.storage.threads.get(threadId))?.metadata).toMatchObject({ owner: "alice" });

      const foreignTool = await bob.callTool({ name: "alice-echo", arguments: say("hi") });
      expect(foreignTool).toMatchObject({ isError: true });
      expect(resultText(foreignTool)).toBe('Unknown tool "alice-echo": tools/list names the tools you may call.');

      const foreignThread = await bob.callTool({ name: "bob-echo", arguments: say("intrude"), _meta: { "langgraph/thread_id": threadId } });
      expect(foreignThread.isError).toBe(true);
      expect(resultText(foreignThread)).toBe(`Thread "${threadId}" not found.`);
      expect(await server.storage.runs.search({ thread_id: threadId })).toHaveLength(1);

      // Alice herself continues on it.
      const again = await alice.callTool({ name: "alice-echo", arguments: say("me again"), _meta: { "langgraph/thread_id": threadId } });
      expect(resultText(again)).toBe("echo: me again");
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it("answers a handler's denial as a tool error, and creates nothing", async () => {
    const { base, server } = servers[mode];
    const { client } = await mcpClient(base, { token: "dave" });
    try {
      const before = await server.storage.threads.count({});
      const denied = await client.callTool({ name: "dave-echo", arguments: say("hi") });
      expect(denied.isError).toBe(true);
      expect(resultText(denied)).toBe("Not allowed (403): dave may not start threads");
      expect(await server.storage.threads.count({})).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe("MCP sessions under custom auth", () => {
  it("belong to the user who opened them: another user's request with the session id answers 404", async () => {
    const { base } = servers.session;
    const { client, transport } = await mcpClient(base, { token: "alice" });
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const asUser = (token: string) =>
        fetch(`${base}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "mcp-session-id": transport.sessionId!,
            "mcp-protocol-version": transport.protocolVersion ?? "2025-11-25",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/list" }),
        });
      const bob = await asUser("bob");
      expect(bob.status).toBe(404);
      expect(await bob.json()).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
      const alice = await asUser("alice");
      expect(alice.status).toBe(200);
      expect(await alice.text()).toContain('"name":"alice-echo"');
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["alice-echo", "alice-whoami"]);
    } finally {
      await client.close();
    }
  });
});
