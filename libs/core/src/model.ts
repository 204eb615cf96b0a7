/**
 * Domain model shared by every layer. Field names follow the LangGraph Agent Protocol wire format
 * (snake_case) so a record can go out through the HTTP API without renaming.
 *
 * Timestamps are ISO-8601 UTC strings with millisecond precision (`Date#toISOString()`): every driver
 * stores and returns them in that form, so records compare equal across drivers and sort lexically.
 */

/** Any value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type Metadata = Record<string, unknown>;

/** A graph's state values, as the checkpointer's latest snapshot exposes them. */
export type DefaultValues = Record<string, unknown>;

export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";

export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";

export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ["pending", "running"];
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ["error", "success", "timeout", "interrupted"];

export type MultitaskStrategy = "reject" | "rollback" | "interrupt" | "enqueue";

export type SortOrder = "asc" | "desc";

export interface RunnableConfig {
  tags?: string[];
  recursion_limit?: number;
  configurable?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Assistant {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: RunnableConfig;
  context: unknown;
  metadata: Metadata;
  /** The version currently in effect (see `AssistantRepo.setLatest`). */
  version: number;
  created_at: string;
  updated_at: string;
}

export interface AssistantVersion {
  assistant_id: string;
  version: number;
  graph_id: string;
  name: string;
  description: string | null;
  config: RunnableConfig;
  context: unknown;
  metadata: Metadata;
  created_at: string;
}

/** An interrupt raised by `interrupt()` inside a graph, as LangGraph reports it. */
export interface Interrupt {
  id?: string;
  value?: unknown;
  [key: string]: unknown;
}

export interface Thread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: Metadata;
  config: RunnableConfig;
  status: ThreadStatus;
  /** Latest state values, kept by the engine after each run; null before the first run. */
  values: DefaultValues | null;
  /** Pending interrupts keyed by task id, as the official server reports them. */
  interrupts: Record<string, Interrupt[]>;
  /** Last run's error, when status is "error". */
  error: unknown;
}

/**
 * A thread without its state (`values`, `interrupts`): what an existence, status or authorization check
 * needs. Reading it costs the same on a thread of 1,000 turns as on one of 10 (`ThreadRepo.getHeader`).
 */
export type ThreadHeader = Omit<Thread, "values" | "interrupts">;

/** Coordinates of one checkpoint in the LangGraph checkpointer. */
export interface Checkpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
}

/** Execution input of a run as admitted (body of the create-run request, normalized). */
export interface RunKwargs {
  input?: unknown;
  command?: unknown;
  config?: RunnableConfig;
  context?: unknown;
  stream_mode?: string[];
  [key: string]: unknown;
}

export interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  /** For a run scheduled with `after_seconds`, the time it becomes eligible (as the official server does). */
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: Metadata;
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy;
  /**
   * Why the run was cancelled (`interrupted` by a cancel), null when it was not: written by the cancel's
   * own terminal write (`RunRepo.transition`'s `cancelReason`). `<cause>:<detail>`, as the official SDK
   * reads it (`taken:` prefix for input absorbed by steering): see the engine's cancel-reason.ts.
   * Drivers always return it (null when none); optional here for runs built elsewhere (tests, imports).
   */
  cancel_reason?: string | null;
}

/**
 * Why a run failed: its error's type (`name`) and message, never a stack. Kept per run by settlement
 * with the terminal `error` status (`RunRepo.transition`), so it outlives later runs of the thread
 * (whose `Thread.error` is the latest run's). Server-private like `RunInternal`: the official `Run`
 * schema has no error, so it is never part of `Run` nor of run listings.
 */
export interface RunError {
  error: string;
  message: string;
}

/** How much of a failure's message a run keeps (`RunError.message`); the rest is cut off. */
export const RUN_ERROR_MESSAGE_MAX = 2000;

/**
 * Server-private facts about a run. Never part of `Run`, never read from request JSON, never emitted.
 * Set only by the server's own code (the A2A adapter) when it admits a run.
 */
export interface RunInternal {
  /** Settlement records a `RunResult` for this run before its terminal status (A2A runs only). */
  captureResult?: boolean;
  /** A2A lineage: id of the first run of the task this run continues (the task id). */
  taskId?: string;
  /** The A2A message (wire JSON) this run answers, for the task's history. Never read from run requests. */
  message?: unknown;
  /**
   * Attempts a shutdown handed back (`RunRepo.requeue` with `handBack`): they made progress on purpose,
   * so they do not count against the attempts a run may lose to dying workers.
   */
  handBacks?: number;
  /**
   * The W3C trace context the run was admitted in (written only when tracing is on): its queue wait and
   * every attempt's execution continue that trace, on whichever process claims it.
   */
  traceparent?: string;
}

/** An item of the LangGraph store (`/store/items`, `BaseStore` in graphs). */
export interface Item {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface Cron {
  cron_id: string;
  assistant_id: string;
  /** null for a stateless cron: each tick creates a new thread. */
  thread_id: string | null;
  /** Standard 5-field cron expression, evaluated in UTC. */
  schedule: string;
  /** Run creation body applied on each tick. */
  payload: Record<string, unknown>;
  metadata: Metadata;
  user_id: string | null;
  end_time: string | null;
  /** Next tick due; null when the cron has ended. */
  next_run_date: string | null;
  /** For stateless crons: what happens to each tick's thread. */
  on_run_completed: "delete" | "keep";
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** One event of a run's resumable stream, as written to `EventRepo`. */
export interface StoredEvent {
  /** Monotonic per run; what SSE sends as `id:` and a client sends back as `Last-Event-ID`. */
  id: string;
  event: string;
  data: unknown;
}

export type DeliveryKind = "webhook" | "a2a_push";
export type DeliveryStatus = "pending" | "delivered" | "failed";

/** A webhook (or A2A push notification) in the outbox. */
export interface Delivery {
  delivery_id: string;
  kind: DeliveryKind;
  url: string;
  headers: Record<string, string>;
  /** Null once delivered or given up: the payload does not outlive its delivery. */
  payload: unknown;
  run_id: string | null;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}
