import { z, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";

type OpenAPIRegistry = OpenAPIHono["openAPIRegistry"];
import { A2A_V03_METHODS, A2A_V1_METHODS } from "./methods.js";
import * as s from "./openapi-schemas.js";

/**
 * The A2A routes' entries in /openapi.json, under the `A2A` tag. They are registered on the routes'
 * OpenAPI registry only (`registerPath`), never through `app.openapi(...)`: that would put zod request
 * validation in front of the handlers, and A2A errors must keep the protocol's shapes (JSON-RPC error
 * envelopes, the HTTP+JSON `{ error }` body), which the transports produce themselves. The request and
 * response schemas (openapi-schemas.ts) describe the wire JSON for readers and tools; the SDK's decoders
 * and our request checks remain what accepts or refuses a request.
 */

const TAG = "A2A";

const assistantParam = z.object({
  assistant_id: z.string().openapi({ description: "Assistant id or graph name (a graph's system assistant)" }),
});
const taskParams = assistantParam.extend({ id: z.string().openapi({ description: "Task id (the id of the task's first run)" }) });
const configParams = taskParams.extend({ configId: z.string().openapi({ description: "Push notification config id" }) });

const versionHeader = z.object({
  "A2A-Version": z
    .string()
    .optional()
    .openapi({ description: '"1.0" for the v1.0 binding; absent (or "0.3") means the legacy v0.3 JSON-RPC methods' }),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const sse = (description: string) => ({
  description: `${description} Server-sent events; each event's data is a \`StreamResponse\` (A2AStreamResponse).`,
  content: { "text/event-stream": { schema: s.StreamResponse } },
});

/** Answers every A2A route may give besides its own: an unknown assistant, and the project's auth. */
const common = {
  404: json(s.AgentNotFound, "Unknown assistant (HTTP+JSON: also an unknown task, as an A2A error)"),
  401: { description: "Not authenticated (when the project configures auth)" },
  403: { description: "Not allowed (when the project configures auth)" },
};
const restErrors = {
  400: json(s.RestError, "Invalid request (A2A error, e.g. INVALID_ARGUMENT)"),
  ...common,
  404: json(z.union([s.RestError, s.AgentNotFound]), "Unknown task (A2A error NOT_FOUND) or unknown assistant ({ detail })"),
};

const JSON_RPC_DESCRIPTION = `The A2A JSON-RPC binding of one agent. The request is a JSON-RPC 2.0 envelope; the answer is a
JSON-RPC response (\`result\` or \`error\`), or server-sent events for the streaming methods.

- With \`A2A-Version: 1.0\`: ${A2A_V1_METHODS.map((m) => `\`${m}\``).join(", ")}.
  Streaming: \`SendStreamingMessage\`, \`SubscribeToTask\`.
- Without the header (or \`0.3\`): the v0.3 methods ${A2A_V03_METHODS.map((m) => `\`${m}\``).join(", ")},
  with v0.3 params and results. Streaming: \`message/stream\`, \`tasks/resubscribe\`.

Errors are JSON-RPC errors with A2A codes (answered with HTTP 200): -32700 parse error, -32601 unknown method,
-32602 invalid params, -32001 task not found, -32002 task not cancelable, -32003 push notifications not supported,
-32004 unsupported operation, -32005 content type not supported, -32009 version not supported, -32603 internal error.`;

const routes: RouteConfig[] = [
  {
    method: "get",
    path: "/.well-known/agent-card.json",
    summary: "Agent card (domain root)",
    description:
      "The card of `assistant_id`, or without it of the default assistant (`a2a.default_assistant` in langgraph.json, else the only graph).",
    request: { query: z.object({ assistant_id: z.string().optional().openapi({ description: "Assistant id or graph name" }) }) },
    responses: { 200: json(s.AgentCard, "The agent card"), ...common, 404: json(s.AgentNotFound, "No such or no default assistant") },
  },
  {
    method: "get",
    path: "/a2a/{assistant_id}/.well-known/agent-card.json",
    summary: "Agent card",
    description: "Clients resolve the card relative to the agent URL: `createFromUrl('http://host/a2a/<assistant_id>/')` (trailing slash).",
    request: { params: assistantParam },
    responses: { 200: json(s.AgentCard, "The agent card"), ...common },
  },
  {
    method: "post",
    path: "/a2a/{assistant_id}",
    summary: "A2A JSON-RPC (v1.0 and v0.3)",
    description: JSON_RPC_DESCRIPTION,
    request: { params: assistantParam, headers: versionHeader, body: body(s.JsonRpcRequest) },
    responses: {
      200: {
        description: "A JSON-RPC response, or (streaming methods) server-sent events, each a JSON-RPC response",
        content: { "application/json": { schema: s.JsonRpcResponse }, "text/event-stream": { schema: s.JsonRpcResponse } },
      },
      ...common,
    },
  },
  rest("get", "/extendedAgentCard", "GetExtendedAgentCard", {
    request: { params: assistantParam },
    responses: {
      200: json(s.AgentCard, "The card for this caller (langgraph.json `a2a.extended_card`); unsupported without that setting"),
      ...restErrors,
    },
  }),
  rest("post", "/message:send", "SendMessage", {
    request: { params: assistantParam, body: body(s.SendMessageRequest) },
    responses: { 200: json(s.SendMessageResponse, "The task (or a message)"), ...restErrors },
  }),
  rest("post", "/message:stream", "SendStreamingMessage", {
    request: { params: assistantParam, body: body(s.SendMessageRequest) },
    responses: { 200: sse("The task, then its updates until it ends or waits for input."), ...restErrors },
  }),
  rest("get", "/tasks", "ListTasks", {
    request: { params: assistantParam, query: s.ListTasksQuery },
    responses: { 200: json(s.ListTasksResponse, "A page of tasks, newest first"), ...restErrors },
  }),
  rest("get", "/tasks/{id}", "GetTask", {
    request: {
      params: taskParams,
      query: z.object({ historyLength: z.string().optional().openapi({ description: "Most recent messages" }) }),
    },
    responses: { 200: json(s.Task, "The task"), ...restErrors },
  }),
  rest("post", "/tasks/{id}:cancel", "CancelTask", {
    request: { params: taskParams },
    responses: { 200: json(s.Task, "The cancelled task"), ...restErrors },
  }),
  rest("get", "/tasks/{id}:subscribe", "SubscribeToTask", {
    request: { params: taskParams },
    responses: { 200: sse("The task now, then its updates while its current run is active."), ...restErrors },
  }),
  rest("post", "/tasks/{id}:subscribe", "SubscribeToTask", {
    request: { params: taskParams },
    responses: { 200: sse("The task now, then its updates while its current run is active."), ...restErrors },
  }),
  rest("post", "/tasks/{id}/pushNotificationConfigs", "CreateTaskPushNotificationConfig", {
    request: { params: taskParams, body: body(s.TaskPushNotificationConfig) },
    responses: { 201: json(s.TaskPushNotificationConfig, "The stored config (with its id)"), ...restErrors },
  }),
  rest("get", "/tasks/{id}/pushNotificationConfigs", "ListTaskPushNotificationConfigs", {
    request: { params: taskParams, query: s.PageQuery },
    responses: { 200: json(s.ListTaskPushNotificationConfigsResponse, "The task's configs, oldest first"), ...restErrors },
  }),
  rest("get", "/tasks/{id}/pushNotificationConfigs/{configId}", "GetTaskPushNotificationConfig", {
    request: { params: configParams },
    responses: { 200: json(s.TaskPushNotificationConfig, "The config"), ...restErrors },
  }),
  rest("delete", "/tasks/{id}/pushNotificationConfigs/{configId}", "DeleteTaskPushNotificationConfig", {
    request: { params: configParams },
    responses: { 204: { description: "Deleted (also when there was no such config)" }, ...restErrors },
  }),
];

/** An HTTP+JSON (v1.0) route under `/a2a/{assistant_id}`: the request must carry `A2A-Version: 1.0`. */
function rest(
  method: RouteConfig["method"],
  subpath: string,
  operation: string,
  config: Pick<RouteConfig, "request" | "responses">,
): RouteConfig {
  return {
    method,
    path: `/a2a/{assistant_id}${subpath}`,
    summary: `${operation} (HTTP+JSON)`,
    description: `The A2A v1.0 HTTP+JSON binding of \`${operation}\`; send \`A2A-Version: 1.0\`. Errors are \`{ "error": { code, status, message, details } }\`.`,
    ...config,
  };
}

/** Adds the A2A routes to `registry` (the routes' OpenAPIHono registry, merged into the app's by `app.route`). */
export function registerA2APaths(registry: OpenAPIRegistry): void {
  for (const route of routes) registry.registerPath({ ...route, tags: [TAG] });
}

/** The documented A2A operations, as `METHOD /path` (for tests and tools). */
export const A2A_DOCUMENTED_ROUTES: readonly string[] = routes.map((r) => `${r.method.toUpperCase()} ${r.path}`);
