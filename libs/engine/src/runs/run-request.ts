import type {
  Assistant,
  Metadata,
  MultitaskStrategy,
  NewThread,
  RunClaim,
  RunInternal,
  RunnableConfig,
  ThreadHeader,
} from "@agent-server/core";
import type { HeldThreadLock } from "./thread-lock.js";

export type StreamMode =
  "values" | "updates" | "messages" | "messages-tuple" | "custom" | "events" | "debug" | "tasks" | "checkpoints" | "tools" | "lifecycle";

/** `Command` as the Agent Protocol carries it (resume an interrupt, update state, jump to nodes). */
export interface RunCommand {
  resume?: unknown;
  update?: Record<string, unknown> | [string, unknown][] | null;
  goto?: string | { node: string; input?: unknown } | Array<string | { node: string; input?: unknown }> | null;
}

/** A create-run request as the HTTP layer hands it over, already validated. Fields as the Agent Protocol names them. */
export interface RunCreateRequest {
  assistant_id: string;
  input?: unknown;
  command?: RunCommand | null;
  config?: RunnableConfig;
  context?: unknown;
  metadata?: Metadata;
  stream_mode?: StreamMode | StreamMode[];
  stream_subgraphs?: boolean;
  stream_resumable?: boolean;
  interrupt_before?: "*" | string[];
  interrupt_after?: "*" | string[];
  multitask_strategy?: MultitaskStrategy;
  if_not_exists?: "create" | "reject";
  after_seconds?: number;
  /** Stateless runs only: what happens to the temporary thread afterwards (default delete). */
  on_completion?: "delete" | "keep";
  on_disconnect?: "cancel" | "continue";
  webhook?: string;
  checkpoint_id?: string;
  checkpoint?: { checkpoint_id?: string; checkpoint_ns?: string; checkpoint_map?: Record<string, unknown> };
  /**
   * A `command.resume` that answers an interrupt not pending on the thread (or is ambiguous) fails the run
   * with LangGraph's `UnknownInterruptError` instead of being ignored; the thread stays as it was.
   */
  strict_resume?: boolean;
}

/** The execution input stored in `Run.kwargs`. */
export interface EngineRunKwargs {
  input?: unknown;
  command?: RunCommand | null;
  config: RunnableConfig & { configurable: Record<string, unknown> };
  context?: unknown;
  stream_mode: StreamMode[];
  interrupt_before?: "*" | string[];
  interrupt_after?: "*" | string[];
  webhook?: string;
  /** Stateless run whose thread is deleted when it ends. */
  temporary: boolean;
  subgraphs: boolean;
  resumable: boolean;
  on_disconnect?: "cancel" | "continue";
  /** Started through the thread streaming protocol (see `AdmissionOptions.protocol`). */
  protocol?: boolean;
  /** A protocol run that resumes interrupts: their ids. */
  answered?: string[];
  /** Admitted with `strict_resume` (its config carries LangGraph's strict resume switch). */
  strict_resume?: boolean;
  [key: string]: unknown;
}

/** Who is asking, as the auth layer established it. Never taken from a request body. */
export interface RunAuthContext {
  user: { identity: string; [key: string]: unknown };
  permissions: string[];
}

/** How a run is admitted, beyond its request: where, for whom, and what the caller already holds or read. */
export interface AdmissionOptions {
  /** The thread to run on; omitted for a stateless run (a temporary thread is made). */
  threadId?: string;
  /** Pre-chosen run id, so a caller can subscribe to its stream before the run can start. */
  runId?: string;
  auth?: RunAuthContext;
  /**
   * What the caller already read in this call, so admission does not read it again: the assistant (used
   * when it is the one the request names) and the thread (when it is `threadId`'s). Server code only.
   * `newThread`: the caller created that thread in this call under an id it generated and has not
   * handed out yet, so no other section can be at work on it: admission takes no thread lock.
   */
  loaded?: { assistant?: Assistant; thread?: ThreadHeader; newThread?: boolean };
  /**
   * The run's thread, still to be created (its `thread_id` is `threadId`): the caller generated the id in
   * this call and has not handed it out (an A2A message without a context). Admission writes it with the
   * run, in one write where the driver can (`RunRepo.createWithThread`: the thread already `busy` when the
   * run is claimed), else just before the run; either way nothing is left behind when the run cannot be
   * inserted, and, as with `loaded.newThread`, no thread lock is taken. Server code only.
   */
  createThread?: NewThread;
  /** Server-private facts (A2A marker and lineage). Only server code passes this. */
  internal?: RunInternal;
  /**
   * The run was started through the thread streaming protocol: it streams LangGraph's protocol events
   * to its thread's event log (`ProtocolRuns`) instead of the run's own stream. `answered`: the ids of
   * the interrupts it resumes (announced as `input.answered` when it starts). Server code only.
   */
  protocol?: { answered?: string[] };
  /**
   * Admit the run already ended as cancelled (`interrupted`): validated and written like any run, but
   * never queued, so it cannot execute. See `Engine.createCancelledRun`.
   */
  cancelled?: boolean;
  /**
   * The thread's lock, when the caller already holds it (a section of `Engine.withThreadExecution` or
   * `withThreadLock` on `threadId`): admission runs in that section instead of waiting for it.
   */
  heldLock?: HeldThreadLock;
  /**
   * Insert the run already claimed for this process's free worker (`RunRepo.create`'s `claim`; the
   * engine's, not a caller's): the returned run is `running` when the driver did.
   */
  claim?: RunClaim;
}
