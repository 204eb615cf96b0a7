import { Role, type SendMessageRequest } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";

/**
 * Shape checks of decoded request params, at the entry of each request-handler method, before anything
 * is read or written. The v1.0 decoders (`fromJSON`) coerce scalars (`String(x)`), but the v0.3
 * translators pass values through as they came (`taskId: {}`, `text: 5`, `metadata: []`): a value of the
 * wrong type would reach storage or a graph. Everything wrong here is InvalidParams (-32602 / 400).
 */

/** The most parts one message may have (a client sending more is not sending a chat message). */
export const MAX_MESSAGE_PARTS = 1000;
/** The longest id (task, context, message, config) accepted; ours are UUIDs. */
export const MAX_ID_LENGTH = 512;

export function checkSendMessage(params: SendMessageRequest): void {
  const message = params.message as unknown;
  if (!isPlainObject(message)) throw invalid("message is required and must be an object");
  const { messageId, contextId, taskId, role, parts, metadata, extensions, referenceTaskIds } = message as Record<string, unknown>;
  if (typeof messageId !== "string" || messageId === "") throw invalid("message.messageId must be a non-empty string");
  checkIdField("message.messageId", messageId);
  if (contextId !== undefined) checkIdField("message.contextId", contextId, true);
  if (taskId !== undefined) checkIdField("message.taskId", taskId, true);
  if (role !== Role.ROLE_USER) throw invalid('message.role must be ROLE_USER ("user" in v0.3): a client sends user messages');
  if (!Array.isArray(parts)) throw invalid("message.parts must be an array");
  if (parts.length > MAX_MESSAGE_PARTS) throw invalid(`message.parts has more than ${MAX_MESSAGE_PARTS} parts`);
  parts.forEach((part, index) => checkPart(part, `message.parts[${index}]`));
  checkOptionalObject("message.metadata", metadata);
  checkStringList("message.extensions", extensions);
  checkStringList("message.referenceTaskIds", referenceTaskIds);
  checkOptionalObject("metadata", params.metadata);
  const configuration = params.configuration as unknown;
  if (configuration === undefined || configuration === null) return;
  if (!isPlainObject(configuration)) throw invalid("configuration must be an object");
  const { historyLength, returnImmediately, acceptedOutputModes, taskPushNotificationConfig } = configuration;
  if (historyLength !== undefined && typeof historyLength !== "number") throw invalid("configuration.historyLength must be an integer");
  if (typeof returnImmediately !== "boolean" && returnImmediately !== undefined)
    throw invalid("configuration.returnImmediately must be a boolean");
  checkStringList("configuration.acceptedOutputModes", acceptedOutputModes);
  if (taskPushNotificationConfig !== undefined)
    checkPushConfigShape(taskPushNotificationConfig, "configuration.taskPushNotificationConfig");
}

/** A task id (GetTask, CancelTask, SubscribeToTask, push config methods): a non-empty string. */
export function checkTaskId(value: unknown, field = "id"): string {
  if (typeof value !== "string" || value === "") throw invalid(`${field} must be a non-empty string`);
  checkIdField(field, value);
  return value;
}

/**
 * A push notification config id (Get, Delete): a string; empty or absent (the v0.3 translator leaves a
 * missing `pushNotificationConfigId` undefined) means none, which push/push-configs.ts resolves.
 */
export function checkConfigId(value: unknown): void {
  if (value === undefined) return;
  checkIdField("id", value, true);
}

/**
 * A push notification config as decoded (v1.0 `TaskPushNotificationConfig`, or v0.3 translated): an
 * object whose url, id and token are strings and whose authentication, if any, has string scheme and
 * credentials. The URL itself is checked where configs are stored (push/push-configs.ts).
 */
export function checkPushConfigShape(config: unknown, field = "push notification config"): void {
  if (!isPlainObject(config)) throw invalid(`${field} must be an object`);
  for (const key of ["url", "id", "token", "taskId"] as const) {
    const value = config[key];
    if (value !== undefined && typeof value !== "string") throw invalid(`${field}.${key} must be a string`);
  }
  const authentication = config.authentication;
  if (authentication === undefined || authentication === null) return;
  if (!isPlainObject(authentication)) throw invalid(`${field}.authentication must be an object`);
  for (const key of ["scheme", "credentials"] as const) {
    const value = authentication[key];
    if (value !== undefined && typeof value !== "string") throw invalid(`${field}.authentication.${key} must be a string`);
  }
}

function checkPart(part: unknown, field: string): void {
  if (!isPlainObject(part)) throw invalid(`${field} must be an object`);
  checkOptionalObject(`${field}.metadata`, part.metadata);
  for (const key of ["filename", "mediaType"] as const) {
    if (part[key] !== undefined && typeof part[key] !== "string") throw invalid(`${field}.${key} must be a string`);
  }
  const content = part.content;
  if (!isPlainObject(content)) throw invalid(`${field} has no content (text, data, raw or url)`);
  switch (content.$case) {
    case "text":
    case "url":
      if (typeof content.value !== "string") throw invalid(`${field}.${content.$case} must be a string`);
      return;
    case "raw":
      if (!(content.value instanceof Uint8Array)) throw invalid(`${field}.raw must be base64 bytes`);
      return;
    case "data":
      // Its value must be a JSON object: checked with the message's content (message-input.ts).
      return;
    default:
      throw invalid(`${field} has no content (text, data, raw or url)`);
  }
}

function checkIdField(field: string, value: unknown, allowEmpty = false): void {
  if (typeof value !== "string") throw invalid(`${field} must be a string`);
  if (!allowEmpty && value === "") throw invalid(`${field} must not be empty`);
  if (value.length > MAX_ID_LENGTH) throw invalid(`${field} is longer than ${MAX_ID_LENGTH} characters`);
}

function checkOptionalObject(field: string, value: unknown): void {
  if (value !== undefined && value !== null && !isPlainObject(value)) throw invalid(`${field} must be an object`);
}

function checkStringList(field: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) throw invalid(`${field} must be a list of strings`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function invalid(message: string): RequestMalformedError {
  return new RequestMalformedError(message);
}
