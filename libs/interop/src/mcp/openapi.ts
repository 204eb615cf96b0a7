import { z, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";

type OpenAPIRegistry = OpenAPIHono["openAPIRegistry"];

/**
 * The /mcp endpoint's entries in /openapi.json, under the `MCP` tag. Registered on the routes' registry
 * only (`registerPath`), as the A2A routes are: no zod validation in front of the SDK's transport, whose
 * errors keep MCP's shapes (JSON-RPC error envelopes).
 */

const TAG = "MCP";

const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi("McpJsonRpcMessage", {
    description: "A JSON-RPC 2.0 message of the Model Context Protocol (request, notification or response).",
  });

const headers = z.object({
  "Mcp-Session-Id": z.string().optional().openapi({ description: "Session mode: the id the `initialize` response carried" }),
  "MCP-Protocol-Version": z.string().optional().openapi({ description: "The protocol version negotiated in `initialize`" }),
});

const DESCRIPTION = `The Model Context Protocol over Streamable HTTP: every assistant the caller may run is a tool
(\`tools/list\`, \`tools/call\`). The body is a JSON-RPC message; requests are answered as server-sent events (the
response, preceded by \`notifications/progress\` when the call's \`_meta.progressToken\` asked for them) or
\`202\` for notifications. A tool call runs the assistant on a new thread, or on \`_meta["langgraph/thread_id"]\`,
and answers its reply; failures are tool results with \`isError: true\`. Behind the project's auth like the rest of
the API. See docs/mcp.md.`;

const common = {
  400: { description: "Not a JSON-RPC message, or (session mode) no or a wrong session header: a JSON-RPC error" },
  401: { description: "Not authenticated (when the project configures auth)" },
  404: { description: "Session mode: unknown or expired session (start a new one with `initialize`)" },
};

const routes: RouteConfig[] = [
  {
    method: "post",
    path: "/mcp",
    summary: "MCP message",
    description: DESCRIPTION,
    request: { headers, body: { required: true, content: { "application/json": { schema: JsonRpcMessage } } } },
    responses: {
      200: {
        description: "The JSON-RPC response, as server-sent events (each event's data a JSON-RPC message)",
        content: { "text/event-stream": { schema: JsonRpcMessage } },
      },
      202: { description: "A notification or response from the client, accepted" },
      ...common,
      406: { description: "The client must accept both application/json and text/event-stream" },
    },
  },
  {
    method: "get",
    path: "/mcp",
    summary: "MCP stream for server messages (session mode)",
    description: "Session mode: a server-sent event stream for messages the server sends outside a request. Stateless mode: 405.",
    request: { headers },
    responses: { 200: { description: "Server-sent events" }, 405: { description: "Stateless mode" }, ...common },
  },
  {
    method: "delete",
    path: "/mcp",
    summary: "End an MCP session (session mode)",
    description: "Session mode: ends the session named by `Mcp-Session-Id` and cancels its calls in flight. Stateless mode: 405.",
    request: { headers },
    responses: { 200: { description: "Session ended" }, 405: { description: "Stateless mode" }, ...common },
  },
];

/** Adds /mcp to `registry` (the routes' OpenAPIHono registry, merged into the app's by `app.route`). */
export function registerMcpPaths(registry: OpenAPIRegistry): void {
  for (const route of routes) registry.registerPath({ ...route, tags: [TAG] });
}

/** The documented MCP operations, as `METHOD /path`. */
export const MCP_DOCUMENTED_ROUTES: readonly string[] = routes.map((r) => `${r.method.toUpperCase()} ${r.path}`);
