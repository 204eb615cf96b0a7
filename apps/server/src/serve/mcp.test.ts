import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, killAll, memoryDevArgs, REPO_ROOT, startCli } from "../../test/support/cli-process.js";

const FIXTURE_MCP = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-mcp.json", import.meta.url));

afterEach(killAll);

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const LIST_TOOLS = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

describe("agent-server with /mcp", () => {
  it("serves the tools langgraph.json mcp.assistants names, in session mode, behind the project's auth", async () => {
    const server = await startCli(memoryDevArgs(FIXTURE_MCP));
    await server.waitFor(/MCP endpoint:/);
    expect(server.stdout()).toContain(`MCP endpoint: ${server.url}/mcp (session mode)`);
    // Source schemas are read in the background from start (or from the schema cache); tools/list does
    // not wait for them long, so the listing below comes after they are.
    for (const graph of ["approval", "echo"]) await server.waitFor(new RegExp(`Schemas of [^"]*\\b${graph}\\b[^"]* read from`));
    expect(server.stdout()).not.toMatch(/not supported by agent-server/);

    expect((await fetch(`${server.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: LIST_TOOLS })).status).toBe(401);

    // An MCP client sends the credentials the project's auth handler checks, as any API client does.
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { "x-api-key": "fixture-secret" } },
    });
    const client = new Client({ name: "cli-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
        ["approval", "Asks a human to approve a request"],
        ["echo", 'Runs the LangGraph graph "echo".'],
      ]);
      // Schemas read from the graphs' TypeScript source.
      expect(tools[0]!.inputSchema).toMatchObject({
        type: "object",
        properties: { request: { type: "string", description: 'What asks to be approved, e.g. "deploy v2".' } },
      });
      expect(tools[1]!.inputSchema).toMatchObject({ type: "object", properties: { messages: { type: "array" } } });

      const reply = await client.callTool({ name: "echo", arguments: { messages: [{ type: "human", content: "hi" }] } });
      expect(reply.content).toEqual([{ type: "text", text: "echo: hi" }]);
      const asked = await client.callTool({ name: "approval", arguments: { request: "deploy v2" } });
      expect(asked.isError).toBeFalsy();
      expect((asked.structuredContent as { interrupts: unknown[] }).interrupts).toEqual([
        { id: expect.any(String), value: { question: 'Approve "deploy v2"?' } },
      ]);
    } finally {
      await client.close();
    }
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths["/mcp"] as object).sort()).toEqual(["delete", "get", "post"]);
  });

  it("http.disable_mcp: /mcp answers 404 like any unknown route and is not in /openapi.json; the API is unchanged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-mcp-"));
    try {
      const config = join(dir, "langgraph.json");
      writeFileSync(
        config,
        JSON.stringify({
          graphs: { echo: `${join(REPO_ROOT, "examples/src/echo.ts")}:graph` },
          http: { disable_mcp: true },
          mcp: { mode: "session" },
        }),
      );
      const server = await startCli(memoryDevArgs(config));
      await server.waitFor(/MCP endpoint off/);
      expect(server.stdout()).toContain("MCP endpoint off (http.disable_mcp)");
      expect(server.stdout()).toContain("mcp has no effect with http.disable_mcp");
      for (const method of ["POST", "GET", "DELETE"]) {
        const response = await fetch(`${server.url}/mcp`, {
          method,
          headers: MCP_HEADERS,
          ...(method === "POST" ? { body: LIST_TOOLS } : {}),
        });
        expect(response.status, method).toBe(404);
        expect(await response.json()).toEqual({ detail: `Not found: ${method} /mcp` });
      }
      const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(doc.paths["/mcp"]).toBeUndefined();
      expect(doc.paths["/assistants/search"]).toBeDefined();
      const found = await fetch(`${server.url}/assistants/search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(((await found.json()) as Array<{ graph_id: string }>).map((a) => a.graph_id)).toEqual(["echo"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("warns about mcp.assistants entries that name no graph or assistant", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-mcp-"));
    try {
      const config = join(dir, "langgraph.json");
      writeFileSync(
        config,
        JSON.stringify({ graphs: { echo: `${join(REPO_ROOT, "examples/src/echo.ts")}:graph` }, mcp: { assistants: ["echo", "ecoh"] } }),
      );
      const server = await startCli(memoryDevArgs(config));
      await server.waitFor(/mcp\.assistants names/);
      expect(server.stdout()).toContain(`MCP endpoint: ${server.url}/mcp (stateless mode)`);
      const warning = jsonLines(server.stdout()).find((line) => line.level === 40);
      expect(warning).toMatchObject({
        unknown: ["ecoh"],
        msg: 'langgraph.json: mcp.assistants names "ecoh": no such graph or assistant (yet): no tool for it',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
