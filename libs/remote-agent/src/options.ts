/** What a headers function is told: which agent and which A2A operation the headers are for. */
export interface HeadersCall {
  url: string;
  operation: "card" | "send" | "get" | "subscribe" | "cancel";
}

/** Headers sent with every call (auth): fixed, or computed per call (a token that expires). */
export type HeadersSource = Record<string, string> | ((call: HeadersCall) => Record<string, string> | Promise<Record<string, string>>);

/** How long a remote that cannot be reached is waited for, and how often it is tried meanwhile. */
export interface RetryPolicy {
  /** First pause after a failed try (ms). Default 250. */
  initialDelayMs?: number;
  /** Pauses double up to this (ms). Default 10 000. */
  maxDelayMs?: number;
  /**
   * How long the remote may stay unreachable before the call fails with an error naming it (ms). Default
   * 600 000 (10 minutes). The run's own time limit ends the wait sooner when it is shorter.
   */
  maxUnreachableMs?: number;
}

export interface RemoteAgentOptions {
  /**
   * The agent's A2A base URL: its card is read at `<url>/.well-known/agent-card.json` (or at `url` itself
   * when it ends in `.json`), and the card decides the binding (JSON-RPC, HTTP+JSON or gRPC). A path
   * (`/a2a/echo`) names an agent of the server the graph runs in.
   */
  url: string;
  /** A short name for messages, spans and metrics; default the card's name. */
  name?: string;
  /** The tool's description; default the card's description and skills. */
  description?: string;
  /** Headers for every call to the agent, the card's included (Authorization, API keys). */
  headers?: HeadersSource;
  /** The state key holding the conversation. Default `messages`. */
  messagesKey?: string;
  /** Limit for one request to the agent (ms; streams excepted). Default 30 000. */
  requestTimeoutMs?: number;
  /** Limit for the whole remote task (ms): past it the task is cancelled and the call fails. Default none. */
  taskTimeoutMs?: number;
  /** Between two reads of a task when the agent cannot stream (ms). Default 1 000. */
  pollIntervalMs?: number;
  retry?: RetryPolicy;
}

/** The options with every default filled in. */
export interface ResolvedOptions {
  url: string;
  name: string | undefined;
  description: string | undefined;
  headers: HeadersSource | undefined;
  messagesKey: string;
  requestTimeoutMs: number;
  taskTimeoutMs: number | undefined;
  pollIntervalMs: number;
  retry: Required<RetryPolicy>;
}

export function resolveOptions(options: RemoteAgentOptions): ResolvedOptions {
  if (!options || typeof options.url !== "string" || options.url === "") throw new TypeError("remoteAgent: options.url is required");
  return {
    url: options.url.replace(/\/+$/, ""),
    name: options.name,
    description: options.description,
    headers: options.headers,
    messagesKey: options.messagesKey ?? "messages",
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    taskTimeoutMs: options.taskTimeoutMs,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    retry: {
      initialDelayMs: options.retry?.initialDelayMs ?? 250,
      maxDelayMs: options.retry?.maxDelayMs ?? 10_000,
      maxUnreachableMs: options.retry?.maxUnreachableMs ?? 600_000,
    },
  };
}
