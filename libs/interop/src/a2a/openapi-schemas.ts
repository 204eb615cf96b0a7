import { z } from "@hono/zod-openapi";
import { A2A_V03_METHODS, A2A_V1_METHODS } from "./methods.js";

/**
 * The A2A wire JSON as /openapi.json documents it (openapi.ts), named `A2A...` beside the LangGraph API's
 * components. These schemas describe; they validate nothing: the SDK's decoders and tasks/request-checks.ts
 * are what accept or refuse a request. Objects stay open (`looseObject`): the protocol lets messages,
 * parts and cards carry fields (extensions, v0.3 fields) not listed here.
 */

const TASK_STATES = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_FAILED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
] as const;

const metadata = z.record(z.string(), z.unknown()).optional().openapi({ description: "Free-form metadata" });

export const Part = z
  .looseObject({
    text: z.string().optional().openapi({ description: "Text content" }),
    raw: z.string().optional().openapi({ description: "File bytes, base64", format: "byte" }),
    url: z.string().optional().openapi({ description: "File URL" }),
    data: z.unknown().optional().openapi({ description: "Structured data: a JSON object becomes part of the run input" }),
    mediaType: z
      .string()
      .optional()
      .openapi({ description: "Media type, e.g. image/png (file parts: checked against the card's input modes)" }),
    filename: z.string().optional(),
    metadata,
  })
  .openapi("A2APart", { description: "Exactly one of text, raw, url or data." });

export const Message = z
  .looseObject({
    messageId: z.string(),
    contextId: z.string().optional().openapi({ description: "Thread id; absent starts a new thread" }),
    taskId: z.string().optional().openapi({ description: "Set to continue a task that waits for input" }),
    role: z.enum(["ROLE_USER", "ROLE_AGENT"]),
    parts: z.array(Part),
    metadata,
    extensions: z.array(z.string()).optional(),
    referenceTaskIds: z.array(z.string()).optional(),
  })
  .openapi("A2AMessage");

export const TaskPushNotificationConfig = z
  .looseObject({
    id: z.string().optional().openapi({ description: "Config id; generated when absent" }),
    taskId: z.string().optional(),
    url: z.string().openapi({ description: "Absolute http(s) URL the notifications are POSTed to" }),
    token: z.string().optional().openapi({ description: "Sent as X-A2A-Notification-Token" }),
    authentication: z.looseObject({ scheme: z.string(), credentials: z.string().optional() }).optional(),
  })
  .openapi("A2ATaskPushNotificationConfig");

export const SendMessageRequest = z
  .looseObject({
    message: Message,
    configuration: z
      .looseObject({
        acceptedOutputModes: z.array(z.string()).optional(),
        taskPushNotificationConfig: TaskPushNotificationConfig.optional(),
        historyLength: z.int().optional(),
        returnImmediately: z.boolean().optional().openapi({ description: "Answer at once instead of when the task ends or waits" }),
      })
      .optional(),
    metadata,
  })
  .openapi("A2ASendMessageRequest");

const Artifact = z
  .looseObject({ artifactId: z.string(), name: z.string().optional(), parts: z.array(Part), metadata })
  .openapi("A2AArtifact");

export const Task = z
  .looseObject({
    id: z.string().openapi({ description: "Task id: the id of the task's first run" }),
    contextId: z.string().openapi({ description: "Thread id" }),
    status: z.looseObject({ state: z.enum(TASK_STATES), message: Message.optional(), timestamp: z.string().optional() }),
    artifacts: z.array(Artifact).optional(),
    history: z.array(Message).optional(),
    metadata,
  })
  .openapi("A2ATask");

export const SendMessageResponse = z
  .union([z.looseObject({ task: Task }), z.looseObject({ message: Message })])
  .openapi("A2ASendMessageResponse");

export const StreamResponse = z
  .union([
    z.looseObject({ task: Task }),
    z.looseObject({ message: Message }),
    z.looseObject({ statusUpdate: z.looseObject({ taskId: z.string(), contextId: z.string(), status: z.unknown() }) }),
    z.looseObject({ artifactUpdate: z.looseObject({ taskId: z.string(), contextId: z.string(), artifact: Artifact }) }),
  ])
  .openapi("A2AStreamResponse");

export const ListTasksQuery = z.object({
  contextId: z.string().optional(),
  status: z.string().optional().openapi({ description: "A task state name, e.g. TASK_STATE_COMPLETED" }),
  pageSize: z.string().optional().openapi({ description: "1 to 100 (default 50)" }),
  pageToken: z.string().optional(),
  historyLength: z.string().optional(),
  statusTimestampAfter: z.string().optional().openapi({ description: "ISO 8601 timestamp" }),
  includeArtifacts: z.string().optional().openapi({ description: '"true" to include artifacts' }),
});

export const ListTasksResponse = z
  .looseObject({ tasks: z.array(Task), nextPageToken: z.string(), pageSize: z.int(), totalSize: z.int() })
  .openapi("A2AListTasksResponse");

export const PageQuery = z.object({ pageSize: z.string().optional(), pageToken: z.string().optional() });

export const ListTaskPushNotificationConfigsResponse = z
  .looseObject({ configs: z.array(TaskPushNotificationConfig), nextPageToken: z.string().optional() })
  .openapi("A2AListTaskPushNotificationConfigsResponse");

export const AgentCard = z
  .looseObject({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    supportedInterfaces: z.array(z.looseObject({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string() })),
    capabilities: z.looseObject({ streaming: z.boolean().optional(), pushNotifications: z.boolean().optional() }),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(z.looseObject({ id: z.string(), name: z.string(), inputModes: z.array(z.string()).optional() })),
    url: z.string().optional().openapi({ description: "v0.3: the JSON-RPC endpoint" }),
    protocolVersion: z.string().optional().openapi({ description: 'v0.3: "0.3.0"' }),
  })
  .openapi("A2AAgentCard", { description: "A v1.0 agent card, with the v0.3 fields beside it for v0.3 clients." });

export const JsonRpcRequest = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.enum([...A2A_V1_METHODS, ...A2A_V03_METHODS]),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("A2AJsonRpcRequest");

export const JsonRpcResponse = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional(),
    error: z.looseObject({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi("A2AJsonRpcResponse", { description: "Either result or error" });

export const RestError = z
  .object({
    error: z.looseObject({ code: z.int(), status: z.string(), message: z.string(), details: z.array(z.unknown()).optional() }),
  })
  .openapi("A2AError", { description: "The HTTP+JSON binding's error body" });

export const AgentNotFound = z.object({ detail: z.string() }).openapi("A2AAgentNotFound");
