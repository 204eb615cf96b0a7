import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { callerFrom } from "./caller.js";
import type { ToolCalls } from "./call-tool.js";
import { RESUME_META, THREAD_ID_META } from "./tool-result.js";
import type { McpDeps, ToolCatalog } from "./tools.js";

/** tools/list pages: a page describes each of its tools (input schemas are read per graph), so pages stay small. */
export const TOOLS_PAGE_SIZE = 100;

/** What an MCP client's model is told in `initialize`, about how tools map to runs. */
const INSTRUCTIONS =
  "Each tool runs one LangGraph assistant on this agent-server and answers with its final reply. " +
  `A call starts a new thread unless _meta "${THREAD_ID_META}" names one (every result's _meta names its thread). ` +
  `A run that stops at an interrupt says so; call the tool again with _meta "${THREAD_ID_META}" and "${RESUME_META}" to answer it.`;

/** The requests this server answers, by method, with the SDK's schema for each. */
const REQUEST_SCHEMAS = new Map<string, { safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } } }>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

/** One low-level SDK server (per stateless request, or per session) over the shared tool catalog and calls. */
export function createMcpServer(deps: McpDeps, catalog: ToolCatalog, calls: ToolCalls): Server {
  const server = new Server(
    { name: "agent-server", version: deps.version ?? "0.0.0" },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const entries = await catalog.entries(callerFrom(extra.authInfo));
    const offset = cursorOffset(request.params?.cursor);
    // Described together: each may wait for its graph's source schemas (SOURCE_SCHEMA_WAIT_MS), the page no longer than one.
    const tools: Tool[] = await Promise.all(entries.slice(offset, offset + TOOLS_PAGE_SIZE).map((entry) => catalog.describe(entry)));
    const next = offset + TOOLS_PAGE_SIZE;
    return { tools, ...(next < entries.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => calls.call(request.params, extra));
  return server;
}

/**
 * `server.connect(transport)`, with requests checked against their method's schema first. The SDK
 * parses a request only when its handler runs, and answers a mismatch as -32603 (internal error);
 * malformed params are the client's mistake, so they are answered here as -32602 (invalid params),
 * naming what is wrong, and never reach the handler.
 */
export async function connectChecked(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const parsed = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
      if (parsed && !parsed.success) {
        const error = new McpError(
          ErrorCode.InvalidParams,
          `Invalid params for ${message.method}: ${issuesText(parsed.error?.issues ?? [])}`,
        );
        void transport
          .send({ jsonrpc: "2.0", id: message.id, error: { code: error.code, message: error.message } }, { relatedRequestId: message.id })
          .catch(() => undefined);
        return;
      }
    }
    deliver?.(message, extra);
  };
}

function issuesText(issues: unknown[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const { path, message } = issue as { path?: PropertyKey[]; message?: string };
      return `${(path ?? []).map(String).join(".") || "(request)"}: ${message ?? "invalid"}`;
    })
    .join("; ");
}

/** A cursor this server handed out (the offset of the next page); anything else is -32602. */
function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^(0|[1-9]\d{0,8})$/.test(cursor))
    throw new McpError(ErrorCode.InvalidParams, `Invalid cursor "${cursor}": pass a nextCursor from tools/list`);
  return Number(cursor);
}
