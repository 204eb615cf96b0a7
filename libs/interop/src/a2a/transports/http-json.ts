import {
  A2A_VERSION_HEADER,
  AgentCard,
  ListTasksResponse,
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  type ListTasksRequest,
  type Message,
} from "@a2a-js/sdk";
import {
  A2AError,
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  restStatusFor,
  toRestErrorBody,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { validateVersion, type A2ARequestHandler, type ServerCallContext } from "@a2a-js/sdk/server";
import type { Context } from "hono";
import { storageFault } from "@agent-server/core";
import { INTERNAL_ERROR_MESSAGE, refuseDeepInput, requestDenial, requestStorageFault, type A2ALogger } from "../request-errors.js";
import type { A2ARequestScope } from "../request-scope.js";
import { taskStateFilter } from "../tasks/list-tasks-query.js";
import { callContext } from "./json-rpc.js";
import { A2A_CONTENT_TYPE, readableContentType, responseMediaType } from "./media-type.js";
import { sseResponse } from "./sse.js";

/**
 * The HTTP+JSON (REST) binding under `/a2a/{assistant_id}`, mapped onto the same `A2ARequestHandler` as
 * JSON-RPC, with the paths, status codes and JSON shapes of the SDK's express `restHandler` (and of its
 * `RestTransport` client):
 *
 * | method      | path (after `/a2a/{assistant_id}`)                  | handler                            |
 * |-------------|-----------------------------------------------------|------------------------------------|
 * | POST        | `/message:send`                                     | sendMessage → `SendMessageResponse` |
 * | POST        | `/message:stream`                                   | sendMessageStream → SSE of `StreamResponse` |
 * | GET         | `/tasks/{id}?historyLength=`                        | getTask → `Task`                   |
 * | POST        | `/tasks/{id}:cancel`                                | cancelTask → `Task`                |
 * | GET or POST | `/tasks/{id}:subscribe`                             | resubscribe → SSE                  |
 * | GET         | `/tasks?contextId=&status=&pageSize=&pageToken=...` | listTasks → `ListTasksResponse`    |
 * | POST        | `/tasks/{id}/pushNotificationConfigs`               | create push config → 201 config    |
 * | GET         | `/tasks/{id}/pushNotificationConfigs?pageSize=&pageToken=` | list → `ListTaskPushNotificationConfigsResponse` |
 * | GET         | `/tasks/{id}/pushNotificationConfigs/{configId}`    | get push config → config           |
 * | DELETE      | `/tasks/{id}/pushNotificationConfigs/{configId}`    | delete push config → 204           |
 * | GET         | `/extendedAgentCard`                                | getAuthenticatedExtendedAgentCard  |
 *
 * Media types (A2A v1.0.1): request bodies are read as `application/a2a+json` or `application/json`; any
 * other Content-Type is ContentTypeNotSupported (HTTP 400). Answers are `application/a2a+json` unless the
 * client's `Accept` prefers `application/json` (media-type.ts), with `Vary: Accept`; streams are SSE.
 *
 * Errors answer the binding's own shape, `{ error: { code, status, message, details } }` with the SDK's
 * HTTP status (`toRestErrorBody`/`restStatusFor`: task not found 404, malformed 400, ...). Only v1.0: a
 * request without `A2A-Version: 1.0` is refused with `VersionNotSupportedError` (v0.3 is served on
 * JSON-RPC only). Tenant-prefixed paths are not served (the card's interfaces have no tenant). Bodies
 * the SDK's decoders cannot read are 400; an unexpected error is a 500 with a generic message, logged.
 *
 * `subpath` is the request path after `/a2a/{assistant_id}` (starting with "/").
 */
export async function handleHttpJson(
  c: Context,
  subpath: string,
  handler: A2ARequestHandler,
  card: AgentCard,
  scope: A2ARequestScope,
  logger: A2ALogger,
): Promise<Response> {
  const answer = await answerHttpJson(c, subpath, handler, card, scope, logger);
  return inMediaType(answer, responseMediaType(c.req.header("accept") ?? null));
}

async function answerHttpJson(
  c: Context,
  subpath: string,
  handler: A2ARequestHandler,
  card: AgentCard,
  scope: A2ARequestScope,
  logger: A2ALogger,
): Promise<Response> {
  const request = c.req.raw;
  const failure = (error: unknown) => restErrorBody(error, logger, { binding: "HTTP+JSON", method: request.method, path: c.req.path });
  const failed = (error: unknown) => {
    const { status, body, retryAfterSeconds } = failure(error);
    return json(status, body, retryAfterSeconds);
  };
  try {
    const route = matchRoute(request.method, subpath);
    if (!route) return notFound(request.method, subpath);
    const contentType = request.headers.get("content-type");
    if (contentType && !readableContentType(contentType)) {
      throw new ContentTypeNotSupportedError(
        `Unsupported Content-Type "${contentType}"; expected application/json or application/a2a+json.`,
      );
    }
    const body = await readBody(request);
    const context = callContext(request.headers.get(A2A_VERSION_HEADER) || undefined, scope, { signal: request.signal });
    validateVersion(context.requestedVersion, card, "HTTP+JSON");
    const query = new URL(request.url).searchParams;
    const answer = await route(body, query, handler, context);
    return answer instanceof Response ? answer : await stream(c, answer, failure);
  } catch (error) {
    return failed(error);
  }
}

/** A route's answer: a response, or the events of a streaming method (answered as SSE by `stream`). */
type RouteHandler = (
  body: unknown,
  query: URLSearchParams,
  handler: A2ARequestHandler,
  context: ServerCallContext,
) => Promise<Response | AsyncGenerator<StreamResponse, void, undefined>>;

function matchRoute(method: string, subpath: string): RouteHandler | undefined {
  if (method === "POST" && subpath === "/message:send") return sendMessage;
  if (method === "POST" && subpath === "/message:stream") return sendMessageStream;
  if (method === "GET" && subpath === "/tasks") return listTasks;
  if (method === "GET" && subpath === "/extendedAgentCard") return extendedAgentCard;
  const task = /^\/tasks\/([^/:]+)(?::(cancel|subscribe))?(\/pushNotificationConfigs(?:\/([^/]+))?)?$/.exec(subpath);
  if (!task) return undefined;
  const taskId = pathSegment(task[1]!);
  const verb = task[2];
  const push = task[3];
  const configId = task[4] !== undefined ? pathSegment(task[4]) : undefined;
  if (push) {
    if (verb) return undefined;
    if (configId === undefined && method === "POST") return createPushConfig(taskId);
    if (configId === undefined && method === "GET") return listPushConfigs(taskId);
    if (configId !== undefined && method === "GET") return getPushConfig(taskId, configId);
    if (configId !== undefined && method === "DELETE") return deletePushConfig(taskId, configId);
    return undefined;
  }
  if (verb === "cancel" && method === "POST") return cancelTask(taskId);
  if (verb === "subscribe" && (method === "GET" || method === "POST")) return subscribe(taskId);
  if (!verb && method === "GET") return getTask(taskId);
  return undefined;
}

const sendMessage: RouteHandler = async (body, _query, handler, context) => {
  const params = sendMessageRequest(body);
  const result = await handler.sendMessage(params, context);
  const payload = isMessage(result) ? { $case: "message" as const, value: result } : { $case: "task" as const, value: result };
  return json(200, SendMessageResponse.toJSON({ payload }));
};

const sendMessageStream: RouteHandler = async (body, _query, handler, context) => {
  const params = sendMessageRequest(body);
  return handler.sendMessageStream(params, context);
};

const listTasks: RouteHandler = async (_body, query, handler, context) => {
  const includeArtifacts = query.get("includeArtifacts") === "true";
  // Ranges and formats are the request handler's to check (tasks/list-tasks-query.ts), as for JSON-RPC.
  const params: ListTasksRequest = {
    tenant: query.get("tenant") ?? "",
    contextId: query.get("contextId") ?? "",
    status: taskStateFilter(query.get("status") ?? undefined),
    pageSize: queryInteger(query, "pageSize"),
    pageToken: query.get("pageToken") ?? "",
    historyLength: queryInteger(query, "historyLength"),
    statusTimestampAfter: query.get("statusTimestampAfter") || undefined,
    includeArtifacts,
  };
  const result = await handler.listTasks(params, context);
  const serialized = ListTasksResponse.toJSON(result) as Record<string, unknown>;
  const tasks = (serialized.tasks as Array<Record<string, unknown>> | undefined) ?? [];
  return json(200, {
    ...serialized,
    tasks: includeArtifacts ? tasks.map((task) => ({ artifacts: [], ...task })) : tasks,
    nextPageToken: serialized.nextPageToken ?? "",
    pageSize: serialized.pageSize ?? 0,
    totalSize: serialized.totalSize ?? 0,
  });
};

const extendedAgentCard: RouteHandler = async (_body, query, handler, context) => {
  const card = await handler.getAuthenticatedExtendedAgentCard({ tenant: query.get("tenant") ?? "" }, context);
  return json(200, AgentCard.toJSON(card));
};

function getTask(taskId: string): RouteHandler {
  return async (_body, query, handler, context) => {
    const historyLength = queryInteger(query, "historyLength") ?? queryInteger(query, "history_length");
    const task = await handler.getTask({ id: taskId, tenant: "", ...(historyLength !== undefined ? { historyLength } : {}) }, context);
    return json(200, Task.toJSON(task));
  };
}

function cancelTask(taskId: string): RouteHandler {
  return async (_body, _query, handler, context) =>
    json(200, Task.toJSON(await handler.cancelTask({ id: taskId, tenant: "", metadata: {} }, context)));
}

function subscribe(taskId: string): RouteHandler {
  return async (_body, _query, handler, context) => handler.resubscribe({ id: taskId, tenant: "" }, context);
}

function createPushConfig(taskId: string): RouteHandler {
  return async (body, _query, handler, context) => {
    const card = await handler.getAgentCard();
    if (!card.capabilities?.pushNotifications) throw new PushNotificationNotSupportedError();
    if (!isObject(body)) throw new RequestMalformedError("the body must be a push notification config object");
    const params = decode(() => TaskPushNotificationConfig.fromJSON({ ...body, taskId }));
    return json(201, TaskPushNotificationConfig.toJSON(await handler.createTaskPushNotificationConfig(params, context)));
  };
}

function listPushConfigs(taskId: string): RouteHandler {
  return async (_body, query, handler, context) => {
    const pageSize = queryInteger(query, "pageSize");
    if (pageSize !== undefined && (pageSize < 1 || pageSize > 100)) throw new RequestMalformedError("pageSize must be between 1 and 100");
    const params = { taskId, pageSize: pageSize ?? 0, pageToken: query.get("pageToken") ?? "", tenant: "" };
    const result = await handler.listTaskPushNotificationConfigs(params, context);
    return json(200, ListTaskPushNotificationConfigsResponse.toJSON(result));
  };
}

function getPushConfig(taskId: string, id: string): RouteHandler {
  return async (_body, _query, handler, context) =>
    json(200, TaskPushNotificationConfig.toJSON(await handler.getTaskPushNotificationConfig({ taskId, id, tenant: "" }, context)));
}

function deletePushConfig(taskId: string, id: string): RouteHandler {
  return async (_body, _query, handler, context) => {
    await handler.deleteTaskPushNotificationConfig({ taskId, id, tenant: "" }, context);
    return new Response(null, { status: 204 });
  };
}

function sendMessageRequest(body: unknown): SendMessageRequest {
  if (!isObject(body)) throw new RequestMalformedError("the body must be a SendMessageRequest object");
  const params = decode(() => SendMessageRequest.fromJSON(body));
  if (!params.message) throw new RequestMalformedError("message is required");
  if (!params.message.messageId) throw new RequestMalformedError("message.messageId is required");
  return params;
}

/** An SSE stream of `StreamResponse` JSON; an error before the first event is a plain REST error. */
async function stream(
  c: Context,
  events: AsyncGenerator<StreamResponse, void, undefined>,
  failure: (error: unknown) => { status: number; body: unknown; retryAfterSeconds?: number },
): Promise<Response> {
  const iterator = events[Symbol.asyncIterator]();
  let first: IteratorResult<StreamResponse, unknown>;
  try {
    first = await iterator.next();
  } catch (error) {
    const { status, body, retryAfterSeconds } = failure(error);
    return json(status, body, retryAfterSeconds);
  }
  return sseResponse(
    c,
    first,
    iterator,
    (event) => StreamResponse.toJSON(event),
    (error) => failure(error).body,
  );
}

/**
 * The SDK's `fromJSON` decoders throw TypeErrors on shapes they do not expect (`parts: [null]`, `raw: 5`):
 * the client's params, not an internal error.
 */
function decode<T>(read: () => T): T {
  try {
    return read();
  } catch {
    throw new RequestMalformedError("the request body does not have the shape this method takes");
  }
}

async function readBody(request: Request): Promise<unknown> {
  if (request.method === "GET" || request.method === "DELETE") return undefined;
  const text = await request.text();
  if (!text.trim()) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RequestMalformedError("Invalid JSON payload.");
  }
  refuseDeepInput(body);
  return body;
}

/** A percent-encoded path segment; a broken encoding (`%zz`) is the client's 400. */
function pathSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new RequestMalformedError("the request path has an invalid percent-encoding");
  }
}

/** An integer query parameter (absent or empty: undefined); anything but decimal digits is a 400. */
function queryInteger(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === "") return undefined;
  if (!/^-?\d{1,15}$/.test(value.trim())) throw new RequestMalformedError(`${name} must be an integer`);
  return Number(value.trim());
}

function isMessage(result: Message | Task): result is Message {
  return "messageId" in result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `response` in the media type the client asked for: the binding's JSON answers are written as
 * `application/a2a+json` and relabelled here (SSE streams are left as they are). `Vary: Accept` on every
 * answer, so a cache keeps the two apart.
 */
function inMediaType(response: Response, mediaType: string): Response {
  if (mediaType !== A2A_CONTENT_TYPE && response.headers.get("content-type") === A2A_CONTENT_TYPE) {
    response.headers.set("content-type", mediaType);
  }
  response.headers.append("vary", "Accept");
  return response;
}

function json(status: number, body: unknown, retryAfterSeconds?: number): Response {
  const headers: Record<string, string> = { "Content-Type": A2A_CONTENT_TYPE };
  if (retryAfterSeconds !== undefined) headers["Retry-After"] = String(retryAfterSeconds);
  return new Response(JSON.stringify(body), { status, headers });
}

/**
 * A storage fault met before the request reached its handler (the agent's assistant could not be read):
 * answered in the binding's own error shape, like one the handler met; undefined for any other error.
 */
export function httpJsonStorageFault(
  error: unknown,
  logger: A2ALogger,
  context: Record<string, unknown>,
  accept: string | null = null,
): Response | undefined {
  if (!storageFault(error)) return undefined;
  const { status, body, retryAfterSeconds } = restErrorBody(error, logger, context);
  return inMediaType(json(status, body, retryAfterSeconds), responseMediaType(accept));
}

/**
 * An error in the binding's shape: `{ error: { code, status, message, details } }` with the SDK's status
 * for A2A errors; an auth handler's denial with its own status; anything else a logged 500 whose message
 * says nothing of the error.
 */
function restErrorBody(
  error: unknown,
  logger: A2ALogger,
  context: Record<string, unknown>,
): { status: number; body: unknown; retryAfterSeconds?: number } {
  if (error instanceof A2AError) {
    const status = restStatusFor(error);
    return { status, body: toRestErrorBody(error, status) };
  }
  const denial = requestDenial(error);
  if (denial) {
    const name = denial.status === 401 ? "UNAUTHENTICATED" : "PERMISSION_DENIED";
    return { status: denial.status, body: { error: { code: denial.status, status: name, message: denial.message, details: [] } } };
  }
  const fault = requestStorageFault(error, logger, context);
  if (fault) {
    const status = fault.status === 507 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE";
    return {
      status: fault.status,
      body: { error: { code: fault.status, status, message: fault.detail, details: [] } },
      retryAfterSeconds: fault.retryAfterSeconds,
    };
  }
  logger.error({ ...context, err: error }, "A2A request failed with an unexpected error");
  return { status: 500, body: { error: { code: 500, status: "INTERNAL", message: INTERNAL_ERROR_MESSAGE, details: [] } } };
}

function notFound(method: string, subpath: string): Response {
  const error = new UnsupportedOperationError(`no HTTP+JSON route for ${method} ${subpath}`);
  return json(404, { error: { ...toRestErrorBody(error, 404).error, code: 404, status: "NOT_FOUND" } });
}
