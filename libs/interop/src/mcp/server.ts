import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
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

/** One low-level SDK server (per stateless request, or per session) over the shared tool catalog and calls. */
export function createMcpServer(deps: McpDeps, catalog: ToolCatalog, calls: ToolCalls): Server {
  const server = new Server(
    { name: "agent-server", version: deps.version ?? "0.0.0" },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(loose("tools/list"), async (raw, extra) => {
    const request = validParams(ListToolsRequestSchema, raw);
    const entries = await catalog.entries(callerFrom(extra.authInfo));
    const offset = cursorOffset(request.params?.cursor);
    const tools: Tool[] = [];
    for (const entry of entries.slice(offset, offset + TOOLS_PAGE_SIZE)) tools.push(await catalog.describe(entry));
    const next = offset + TOOLS_PAGE_SIZE;
    return { tools, ...(next < entries.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(loose("tools/call"), (raw, extra) => calls.call(validParams(CallToolRequestSchema, raw).params, extra));
  return server;
}

/**
 * The SDK parses a request against the handler's schema before the handler runs and answers a mismatch
 * as -32603 (internal error). Malformed params are the client's mistake: handlers are registered with
 * this schema (the method alone), and check params themselves (`validParams`), answering -32602.
 */
function loose<M extends string>(method: M) {
  return z.object({ method: z.literal(method), params: z.unknown().optional() });
}

function validParams<T extends z.ZodType>(schema: T, request: unknown): z.output<T> {
  const parsed = schema.safeParse(request);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(request)"}: ${issue.message}`).join("; ");
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${issues}`);
  }
  return parsed.data;
}

/** A cursor this server handed out (the offset of the next page); anything else is -32602. */
function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^(0|[1-9]\d{0,8})$/.test(cursor))
    throw new McpError(ErrorCode.InvalidParams, `Invalid cursor "${cursor}": pass a nextCursor from tools/list`);
  return Number(cursor);
}
