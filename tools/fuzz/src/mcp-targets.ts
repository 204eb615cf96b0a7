import fc from "fast-check";
import { RESUME_META, THREAD_ID_META } from "@agent-server/interop";
import { contentType, jsonObject, type Labeled } from "./hostile-values.js";
import { buildRequest, caller, type FuzzTarget } from "./request-parts.js";
import { fromSchema, idValue, mutatedBody, type GenContext } from "./schema-arbitraries.js";

const METHODS = ["initialize", "tools/list", "tools/call", "ping", "notifications/initialized", "notifications/cancelled"];
const BOGUS_METHODS = ["", "resources/list", "prompts/get", "tools/cal", "__proto__", "constructor", "rpc.discover"];

/** Tool names: the world's tools (graphs, each user's echo assistant as tools/list names it), unknown and hostile ones. */
const toolName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("echo", "approval", "bob_s_echo", "alice_s_echo") },
  { weight: 1, arbitrary: fc.constantFrom("", "nope", "echo ", "ECHO", "../echo", "x".repeat(300), "__proto__") },
);

function callParams(ctx: GenContext): fc.Arbitrary<unknown> {
  const thread = fc.oneof(
    { weight: 4, arbitrary: idValue(ctx, "thread").map((v) => v.value as unknown) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>("", 7, null, ["x"], { id: "x" }) },
  );
  const meta = fc.record(
    {
      [THREAD_ID_META]: thread,
      [RESUME_META]: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
      progressToken: fc.oneof(fc.integer(), fc.string()),
    },
    { requiredKeys: [] },
  );
  const args = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.string({ maxLength: 12 }).map((text) => jsonObject([["messages", [{ role: "user", content: text }]]]) as unknown),
    },
    { weight: 2, arbitrary: fromSchema(ctx, {}) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>({ request: "deploy" }, { messages: "hi" }, [], "x") },
  );
  return fc.record({ name: toolName, arguments: args, _meta: meta }, { requiredKeys: ["name"] });
}

function params(ctx: GenContext, method: string): fc.Arbitrary<unknown> {
  if (method === "tools/call") return callParams(ctx);
  if (method === "tools/list")
    return fc.record({ cursor: fc.oneof(fc.constantFrom("0", "100", "-1", "abc", "1e3"), fc.string()) }, { requiredKeys: [] });
  if (method === "initialize") {
    return fc.record({
      protocolVersion: fc.constantFrom("2025-11-25", "2025-06-18", "2024-11-05", "1999-01-01", ""),
      capabilities: fc.constant(jsonObject()),
      clientInfo: fc.constant(
        jsonObject([
          ["name", "fuzz"],
          ["version", "1"],
        ]),
      ),
    });
  }
  if (method === "notifications/cancelled") return fc.record({ requestId: fc.oneof(fc.integer(), fc.string()), reason: fc.string() });
  return fc.constant(jsonObject());
}

/** The headers a Streamable HTTP client sends, mostly right: both media types accepted, no session (stateless server). */
const mcpHeaders: fc.Arbitrary<Labeled<Record<string, string>>> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ label: "", value: { accept: "application/json, text/event-stream" } }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<[string, Record<string, string>]>(
        ["accept=json only", { accept: "application/json" }],
        ["no accept", {}],
        ["session id", { accept: "application/json, text/event-stream", "mcp-session-id": "00000000-0000-4000-8000-000000000000" }],
        ["protocol version=bogus", { accept: "application/json, text/event-stream", "mcp-protocol-version": "1999-01-01" }],
      )
      .map(([label, value]) => ({ label, value })),
  },
);

/** Every JSON-RPC message an MCP client sends to POST /mcp, bogus methods and broken envelopes, and the other HTTP methods. */
export function mcpTarget(ctx: GenContext): FuzzTarget {
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...METHODS) },
    { weight: 1, arbitrary: fc.constantFrom(...BOGUS_METHODS) },
  );
  const request = method.chain((name) =>
    fc.record({
      method: fc.constant(name),
      params: mutatedBody(params(ctx, name)),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.constant(undefined)),
      jsonrpc: fc.oneof(
        { weight: 8, arbitrary: fc.constant<unknown>("2.0") },
        { weight: 1, arbitrary: fc.constantFrom<unknown>("1.0", 2, undefined) },
      ),
      batch: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      http: fc.oneof({ weight: 12, arbitrary: fc.constant("POST") }, { weight: 1, arbitrary: fc.constantFrom("GET", "DELETE", "PUT") }),
      headers: mcpHeaders,
      contentType,
      user: caller(ctx.world),
    }),
  );
  return {
    name: "MCP /mcp",
    weight: 4,
    arbitrary: request.map((r) => {
      const envelope = jsonObject(
        Object.entries({
          jsonrpc: r.jsonrpc,
          id: r.method.startsWith("notifications/") ? undefined : r.id,
          method: r.method,
          params: r.params.value,
        }).filter(([, v]) => v !== undefined),
      );
      const body = r.params.isRaw ? r.params : { value: r.batch ? [envelope, envelope] : envelope };
      return buildRequest({
        method: r.http,
        path: "/mcp",
        route: `${r.http} /mcp [${r.method || "(empty)"}]`,
        labels: [r.headers.label, r.batch ? "batch" : "", `params ${r.params.label}`],
        user: r.user,
        contentType: r.contentType,
        body: r.http === "POST" ? body : undefined,
        extraHeaders: r.headers.value,
        sinkUrl: ctx.world.sinkUrl,
        jsonRpc: true,
      });
    }),
  };
}
