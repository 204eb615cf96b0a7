import { A2A_VERSION_HEADER, type AgentCard } from "@a2a-js/sdk";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type A2ARequestHandler,
  type ServerCallContextOptions,
} from "@a2a-js/sdk/server";
import type { Context } from "hono";
import { A2A_LEGACY_PROTOCOL_VERSION } from "../agent-card.js";
import { A2A_CALL_SIGNAL_KEY } from "../call-signal.js";
import { refuseDeepInput, RequestErrorGuard, requestStorageFault, storageFaultJsonRpcError, type A2ALogger } from "../request-errors.js";
import { taskStateFilter } from "../tasks/list-tasks-query.js";
import { A2A_REQUEST_SCOPE_KEY, type A2ARequestScope } from "../request-scope.js";
import { traceJsonRpc } from "../../tracing.js";
import { sseErrorResponse, sseResponse } from "./sse.js";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

type JsonRpcId = string | number | null;

/**
 * One JSON-RPC request at `/a2a/{assistant_id}`, answered as the SDK's express `jsonRpcHandler` (with
 * `legacyCompat` enabled) does, behind Hono:
 * - `A2A-Version: 1.0` → the SDK's `JsonRpcTransportHandler` (methods `SendMessage`, `GetTask`, ...);
 * - no header (or `0.3`) → the SDK's v0.3 `LegacyJsonRpcTransportHandler` (`message/send`, `tasks/get`,
 *   ...), which converts v0.3 params to v1.0, calls the same `A2ARequestHandler` and converts back;
 * - any other version → `VersionNotSupportedError` (the card's JSONRPC interfaces list 1.0 and 0.3).
 * Malformed JSON answers -32700 (the SDK's handlers would report it as an invalid request), JSON nested
 * beyond `MAX_JSON_DEPTH` -32602 before anything decodes it (`refuseDeepInput`); a v1.0 request that is
 * not a JSON-RPC 2.0 request object -32600 (`invalidRequestReason`: the SDK's v1.0 handler says -32602,
 * its v0.3 one -32600, as JSON-RPC 2.0 does); unknown
 * methods -32601 from the SDK's handlers. Streaming methods answer SSE; an error before the first
 * event is a plain JSON-RPC error response. Every error goes out through `RequestErrorGuard`: params
 * the SDK cannot decode are -32602, anything unexpected -32603 "Internal error" (logged, never echoed).
 */
export async function handleJsonRpc(
  c: Context,
  handler: A2ARequestHandler,
  card: AgentCard,
  scope: A2ARequestScope,
  logger: A2ALogger,
): Promise<Response> {
  const request = c.req.raw;
  const header = request.headers.get(A2A_VERSION_HEADER) || undefined;
  const legacy = (header ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
  const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;

  const text = await request.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return Response.json({ jsonrpc: "2.0", id: null, error: { code: PARSE_ERROR, message: `Parse error: ${(error as Error).message}` } });
  }
  const id = requestId(body);
  const context = callContext(header, scope, { signal: request.signal });
  const method = typeof (body as { method?: unknown } | null)?.method === "string" ? (body as { method: string }).method : undefined;
  const guard = new RequestErrorGuard(logger, { binding: "JSONRPC", method, path: c.req.path }, mapError);
  const failure = (error: unknown) => {
    const { status, error: shown } = guard.jsonRpcError(mapError(error));
    return { status, envelope: { jsonrpc: "2.0", id, error: shown } };
  };
  try {
    validateVersion(context.requestedVersion, card, "JSONRPC");
  } catch (error) {
    return Response.json({ jsonrpc: "2.0", id, error: mapError(error) });
  }
  try {
    refuseDeepInput(body);
  } catch (error) {
    return Response.json({ jsonrpc: "2.0", id, error: mapError(error) });
  }
  const invalid = legacy ? undefined : invalidRequestReason(body);
  if (invalid) {
    // An id that is itself invalid (a fraction) is not echoed: JSON-RPC answers null when it cannot tell the id.
    const echoed = typeof id === "number" && !Number.isInteger(id) ? null : id;
    return Response.json({ jsonrpc: "2.0", id: echoed, error: { code: INVALID_REQUEST, message: `Invalid Request: ${invalid}` } });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    // Batches and primitives are not A2A requests; the SDK's v0.3 handler answers them as invalid requests.
    body = { jsonrpc: "2.0", method: "", id };
  }
  const statusFilter = !legacy && method === "ListTasks" ? (body as { params?: { status?: unknown } }).params : undefined;
  if (typeof statusFilter === "object" && statusFilter !== null) {
    // The SDK decodes an unknown status as UNRECOGNIZED, which is also how its client says "no filter":
    // only the wire value tells a typo from an unset filter.
    try {
      taskStateFilter(statusFilter.status);
    } catch (error) {
      return Response.json({ jsonrpc: "2.0", id, error: mapError(error) });
    }
  }
  const guarded = guard.wrap(handler);
  const transport = legacy ? new LegacyJsonRpcTransportHandler(guarded) : new JsonRpcTransportHandler(guarded);
  let response: unknown;
  try {
    response = await traceJsonRpc(method, () => transport.handle(body as Record<string, unknown>, context));
  } catch (error) {
    const { status, envelope } = failure(error);
    return Response.json(envelope, { status });
  }
  if (!isAsyncIterable(response)) {
    const answer = response as { error?: { code: number; message: string; data?: unknown } };
    if (!answer.error) return Response.json(response);
    const { status, error } = guard.jsonRpcError(answer.error);
    return Response.json({ ...answer, error }, { status });
  }

  const iterator = response[Symbol.asyncIterator]();
  let first: IteratorResult<unknown, unknown>;
  try {
    first = await iterator.next();
  } catch (error) {
    const { status, envelope } = failure(error);
    // v0.3 `tasks/resubscribe` always answers SSE, even an error before the first event (as the SDK does).
    if (legacy && method === "tasks/resubscribe") return sseErrorResponse(c, envelope);
    return Response.json(envelope, { status });
  }
  return sseResponse(
    c,
    first,
    iterator,
    (event) => event,
    (error) => failure(error).envelope,
  );
}

/**
 * The call context of one A2A request, for every binding: requested version, and the caller's scope in
 * `state`; gRPC adds what its SDK service parsed from the call (tenant, requested extensions). `signal`
 * (the HTTP request's, or the gRPC call's cancellation) goes into `state` too (call-signal.ts).
 */
export function callContext(
  header: string | undefined,
  scope: A2ARequestScope,
  extra: Pick<ServerCallContextOptions, "tenant" | "requestedExtensions"> & { signal?: AbortSignal | undefined } = {},
): ServerCallContext {
  const { signal, ...options } = extra;
  const state = new Map<string, unknown>([[A2A_REQUEST_SCOPE_KEY, scope]]);
  if (signal) state.set(A2A_CALL_SIGNAL_KEY, signal);
  const identity = scope.auth?.user.identity;
  const user = identity ? { isAuthenticated: true, userName: identity } : undefined;
  return new ServerCallContext({ ...options, requestedVersion: header, state, ...(user ? { user } : {}) });
}

/**
 * A storage fault met before the request reached its handler (the agent's assistant could not be read):
 * answered as a JSON-RPC error to the request's id, like one the handler met; undefined for any other error.
 */
export async function jsonRpcStorageFault(c: Context, error: unknown, logger: A2ALogger): Promise<Response | undefined> {
  const fault = requestStorageFault(error, logger, { binding: "JSONRPC", path: c.req.path });
  if (!fault) return undefined;
  const id = await c.req.raw
    .text()
    .then(
      (text) => requestId(JSON.parse(text)),
      () => null,
    )
    .catch(() => null);
  return Response.json({ jsonrpc: "2.0", id, error: storageFaultJsonRpcError(fault) });
}

/**
 * Why `body` is not a JSON-RPC 2.0 request object (section 4 of the JSON-RPC 2.0 specification), or
 * undefined when it is one: an object (batches are not served) with `jsonrpc: "2.0"`, a non-empty string
 * `method`, an `id` (when present) that is a string, an integer or null, and `params` (when present) that
 * is a structured value. Params of the wrong structure for their method (an array, a missing field) are
 * the method's to refuse, as invalid params.
 */
function invalidRequestReason(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body must be one request object";
  const request = body as Record<string, unknown>;
  if (request.jsonrpc !== "2.0") return '"jsonrpc" must be "2.0"';
  if ("id" in request && !(typeof request.id === "string" || Number.isInteger(request.id) || request.id === null)) {
    return '"id" must be a string, an integer or null';
  }
  if (typeof request.method !== "string" || request.method === "") return '"method" must be a non-empty string';
  if ("params" in request && (typeof request.params !== "object" || request.params === null)) return '"params" must be an object';
  return undefined;
}

function requestId(body: unknown): JsonRpcId {
  if (typeof body !== "object" || body === null) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
