import type { Metadata, MultitaskStrategy, RunnableConfig } from "@agent-server/core";

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
