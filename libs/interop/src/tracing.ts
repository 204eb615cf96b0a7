import type { ServerCallContext } from "@a2a-js/sdk/server";
import { activeContext, contextFromTraceparent, SpanKind, traced, tracingEnabled, type Attributes, type Context } from "@agent-server/core";

/** Where a gRPC call's `traceparent` (from its metadata) waits in the call context for the dispatcher. */
const TRACEPARENT_KEY = "agent-server.traceparent";

/**
 * One A2A or MCP call as a span: `a2a/<method>` (JSON-RPC: under the request's HTTP span; gRPC: a server
 * span under the caller's `traceparent`), `tools/call <tool>` for MCP. With tracing off, `call` as it is.
 */
export function traceCall<T>(
  name: string,
  attributes: Attributes,
  call: () => Promise<T>,
  options: { kind?: SpanKind; parent?: Context } = {},
): Promise<T> {
  if (!tracingEnabled()) return call();
  return traced(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, call, options.parent);
}

/** An A2A method call over JSON-RPC (inside its HTTP request's span). */
export function traceJsonRpc<T>(method: string | undefined, call: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return call();
  const name = method ?? "unknown";
  return traceCall(
    `a2a/${name}`,
    { "rpc.system": "jsonrpc", "rpc.service": "a2a", "rpc.method": name, "rpc.jsonrpc.version": "2.0" },
    call,
  );
}

/** An A2A call over gRPC: a server span, continuing the caller's trace (`keepGrpcTraceparent`). */
export function traceGrpc<T>(method: string, context: ServerCallContext, call: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return call();
  const traceparent = context.state.get(TRACEPARENT_KEY);
  const parent = typeof traceparent === "string" ? contextFromTraceparent(traceparent) : activeContext();
  return traceCall(
    `lf.a2a.v1.A2AService/${method}`,
    { "rpc.system": "grpc", "rpc.service": "lf.a2a.v1.A2AService", "rpc.method": method },
    call,
    {
      kind: SpanKind.SERVER,
      parent,
    },
  );
}

/** Tracing on: the `traceparent` of a gRPC call's metadata, kept in its call context for `traceGrpc`. */
export function keepGrpcTraceparent(context: ServerCallContext, traceparent: string | undefined): ServerCallContext {
  if (tracingEnabled() && traceparent) context.state.set(TRACEPARENT_KEY, traceparent);
  return context;
}
