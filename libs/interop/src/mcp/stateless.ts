import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { authInfoFor, type McpCaller } from "./caller.js";
import { connectChecked } from "./server.js";
import { jsonRpcError, whenBodyEnds } from "./http-responses.js";

/**
 * Stateless mode: every POST gets its own SDK server and transport (the SDK's stateless transport, no
 * Mcp-Session-Id), torn down once its response has been sent — or when the client drops the connection,
 * which aborts the calls in flight and so cancels their runs. Any process can answer any request.
 * GET (a stream for server-initiated messages) and DELETE (ending a session) have no meaning without
 * a session: 405, which MCP clients take as "not offered".
 */
export async function handleStateless(
  request: Request,
  caller: McpCaller,
  newServer: () => Server,
  maxRequestBodySize: number,
): Promise<Response> {
  if (request.method !== "POST") {
    return jsonRpcError(405, -32000, `Method not allowed: this MCP endpoint is stateless (mcp.mode in langgraph.json): POST only`, {
      Allow: "POST",
    });
  }
  const server = newServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize });
  await connectChecked(server, transport);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void server.close().catch(() => undefined);
  };
  try {
    return whenBodyEnds(await transport.handleRequest(request, { authInfo: authInfoFor(caller) }), close);
  } catch (error) {
    close();
    throw error;
  }
}
