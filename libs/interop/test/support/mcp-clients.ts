import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StateGraph } from "@langchain/langgraph";
import { z } from "zod";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { CompiledGraph } from "@agent-server/engine";
import { drivers } from "@agent-server/testing";
import { mcpRoutes, type McpRoutesOptions } from "../../src/mcp/index.js";

/**
 * A graph whose state is a zod object, so its input JSON Schema is read at run time: the tool for it
 * has a real input schema (`question` a string; no other keys), unlike the engine's Annotation.Root
 * test graphs registered in process, whose schema cannot be read.
 */
export const typedGraph = new StateGraph(z.object({ question: z.string().describe("What to ask"), answer: z.string().optional() }))
  .addNode("respond", async (state) => ({ answer: `answer to ${state.question}` }))
  .addEdge("__start__", "respond")
  .compile();

export interface McpTestServer {
  server: TestServer;
  base: string;
  dispose(): Promise<void>;
}

/**
 * The real server on loopback over SQLite with /mcp mounted (and the engine's test graphs plus `typed`),
 * as agent-server wires it: behind the app's auth middleware through `extraRoutes`.
 */
export async function startMcpServer(options: McpRoutesOptions = {}, app: { auth?: unknown } = {}): Promise<McpTestServer> {
  const opened = await drivers.find((d) => d.name === "sqlite")!.open();
  const server = await startTestServer(opened.storage, { app: { ...app, extraRoutes: [(deps) => mcpRoutes(deps, options)] } });
  server.engine.registry.register("typed", typedGraph as unknown as CompiledGraph);
  await server.engine.registry.ensureSystemAssistants(opened.storage);
  return {
    server,
    base: server.url.replace(/\/$/, ""),
    async dispose() {
      await server.close();
      await opened.dispose();
    },
  };
}

/** The official SDK client, connected to `<base>/mcp` (with `token` as a Bearer credential, when given). */
export async function mcpClient(
  base: string,
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<{
  client: Client;
  transport: StreamableHTTPClientTransport;
}> {
  const headers = { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: "agent-server-tests", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** The text of a tool result's first content block. */
export function resultText(result: object): string {
  const first = ((result as { content?: unknown }).content as Array<{ type: string; text?: string }> | undefined)?.[0];
  return first?.type === "text" ? (first.text ?? "") : "";
}
