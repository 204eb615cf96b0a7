import type { RemoteConnection } from "./connection.js";

/** A remote call that failed: the message names the agent (its name and URL) and what went wrong. */
export class RemoteAgentError extends Error {
  override readonly name = "RemoteAgentError";
  readonly agentUrl: string;

  constructor(connection: RemoteConnection, detail: string, cause?: unknown) {
    const url = safeUrl(connection);
    const name = connection.agentName();
    super(
      `A2A agent ${name === connection.options.url ? url : `"${name}" (${url})`}: ${detail}`,
      cause === undefined ? undefined : { cause },
    );
    this.agentUrl = url;
  }
}

function safeUrl(connection: RemoteConnection): string {
  try {
    return connection.url();
  } catch {
    return connection.options.url;
  }
}

/** Node's socket codes that mean the other side is away (or on its way back). */
const AWAY_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** HTTP statuses of an agent that is away, restarting or overloaded (507: its disk is full). */
const AWAY_STATUS_CODES = new Set([408, 425, 429, 502, 503, 504, 507]);
/** The same statuses in the text of the SDK's JSON-RPC transport errors. */
const AWAY_STATUSES = /\b(?:Status: |: )(?:408|425|429|502|503|504|507)\b/;

/** gRPC UNAVAILABLE (14) and RESOURCE_EXHAUSTED (8). */
const AWAY_GRPC_CODES = new Set([8, 14]);

/** Whether `error` says the remote could not be reached or could not serve now, so trying again may work. */
export function isTransient(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const err = e as { code?: unknown; name?: unknown; message?: unknown; data?: unknown; statusCode?: unknown };
    if (typeof err.code === "string" && AWAY_CODES.has(err.code)) return true;
    if (typeof err.statusCode === "number" && AWAY_STATUS_CODES.has(err.statusCode)) return true;
    if (err.name === "TimeoutError") return true;
    if (typeof err.message === "string") {
      if (err.message === "fetch failed" || AWAY_STATUSES.test(err.message)) return true;
    }
    if (typeof err.code === "number" && AWAY_GRPC_CODES.has(err.code) && "details" in (e as object)) return true;
    // Our servers answer a storage outage as JSON-RPC -32603 with this reason: it passes.
    const reason = (err.data as { reason?: unknown } | undefined)?.reason;
    if (reason === "STORAGE_UNAVAILABLE" || reason === "STORAGE_FULL") return true;
  }
  return false;
}

/** The agent does not know the task (any more). */
export function isTaskGone(error: unknown): boolean {
  return (error as { name?: unknown })?.name === "TaskNotFoundError";
}

/** The agent does not offer the operation (e.g. no SubscribeToTask). */
export function isUnsupported(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  return name === "UnsupportedOperationError" || name === "JsonRpcUnsupportedOperationError";
}

/** An error's message, with its cause's when the message alone says little ("fetch failed"). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  return code && !error.message.includes(code) ? `${error.message} (${codeInWords(code)})` : error.message;
}

function codeInWords(code: string): string {
  return code === "ECONNREFUSED" ? "connection refused" : code === "ECONNRESET" ? "connection reset" : code;
}
