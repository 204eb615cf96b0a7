import type { EmittedEvent } from "./types.js";

/** A subgraph's lifecycle statuses, as `@langchain/langgraph-sdk` types them (`LifecycleStreamEvent`). */
export type SubgraphStatus = "started" | "completed" | "failed" | "interrupted";

/** The `data` of a `lifecycle|<namespace>` event. */
export interface LifecycleEventData {
  event: SubgraphStatus;
  namespace: string[];
  /** The tool call whose execution started the subgraph (a subagent called as a tool), when one did. */
  tool_call_id?: string;
  /** Why a `failed` subgraph failed, in the shape of the stream's own `error` events. */
  error?: { error: string; message: string };
}

/**
 * Derives the `lifecycle` stream mode of a classic run stream from LangGraph's `tasks` chunks, streamed
 * with subgraphs. LangGraph itself has no such mode outside its v3 protocol events, so the server reads it
 * off what every subgraph does:
 *
 * - `started`, when the first chunk of a namespace arrives (its ancestors first): sent before that chunk,
 *   so a client learns of a subgraph before its events;
 * - `completed` / `interrupted` / `failed`, when the parent graph reports the result of the task whose
 *   namespace segment (`<node>:<task id>`) is the subgraph's: sent after that result, so the parent's own
 *   `updates` for the node come first. Interrupts win over an error (an `interrupt()` travels as one);
 * - at the end of the run, for subgraphs still open: `completed`, or for a run that failed `failed`, for
 *   a cancelled one `interrupted` (a drained run says nothing: its next attempt goes on with them).
 *
 * A namespace starts once per run. `tool_call_id` comes from the parent task's input: a tool node's task
 * carries its tool call (`{ tool_call: { id } }`, LangChain's per-call `Send`), or a list of them.
 */
export class SubgraphLifecycle {
  /** Namespaces started and not ended yet, by key, in the order they started. */
  private readonly open = new Map<string, string[]>();
  private readonly seen = new Set<string>();
  /** Task id -> the tool call id its input carried. */
  private readonly toolCalls = new Map<string, string>();

  /** `started` for the namespace of a chunk about to go out (and its ancestors) seen for the first time. */
  before(namespace: readonly string[]): EmittedEvent[] {
    const events: EmittedEvent[] = [];
    for (let depth = 1; depth <= namespace.length; depth += 1) {
      const prefix = namespace.slice(0, depth);
      const key = keyOf(prefix);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.open.set(key, prefix);
      const toolCallId = this.toolCalls.get(taskIdOf(prefix.at(-1)!));
      events.push(this.event(prefix, "started", toolCallId === undefined ? {} : { tool_call_id: toolCallId }));
    }
    return events;
  }

  /** What a chunk tells after it went out: a task's tool call, or the end of the subgraph a task ran. */
  after(namespace: readonly string[], mode: string, chunk: unknown): EmittedEvent[] {
    if (mode !== "tasks" || !isRecord(chunk) || typeof chunk.id !== "string") return [];
    if (!("result" in chunk)) {
      const toolCallId = toolCallOf(chunk.input);
      if (toolCallId !== undefined) this.toolCalls.set(chunk.id, toolCallId);
      return [];
    }
    if (typeof chunk.name !== "string") return [];
    const child = [...namespace, `${chunk.name}:${chunk.id}`];
    if (!this.open.has(keyOf(child))) return [];
    const interrupted = Array.isArray(chunk.interrupts) && chunk.interrupts.length > 0;
    if (interrupted) return this.close(child, "interrupted");
    if (chunk.error != null) return this.close(child, "failed", errorPayload(chunk.error));
    return this.close(child, "completed");
  }

  /** The ends of the subgraphs still open when the run ends (see the class comment). */
  finish(outcome: { kind: "completed" } | { kind: "failed"; error: unknown } | { kind: "cancelled" }): EmittedEvent[] {
    const events: EmittedEvent[] = [];
    for (const namespace of [...this.open.values()].reverse()) {
      if (outcome.kind === "completed") events.push(...this.close(namespace, "completed"));
      else if (outcome.kind === "cancelled") events.push(...this.close(namespace, "interrupted"));
      else events.push(...this.close(namespace, "failed", errorPayload(outcome.error)));
    }
    return events;
  }

  /** Ends `namespace` and, deepest first, whatever it started that is still open. */
  private close(namespace: string[], status: SubgraphStatus, error?: LifecycleEventData["error"]): EmittedEvent[] {
    const prefix = keyOf(namespace);
    const ending = [...this.open.entries()].filter(([key]) => key === prefix || key.startsWith(`${prefix}|`));
    ending.sort(([a], [b]) => b.split("|").length - a.split("|").length);
    const events: EmittedEvent[] = [];
    for (const [key, ns] of ending) {
      this.open.delete(key);
      events.push(this.event(ns, status, error && key === prefix ? { error } : {}));
    }
    return events;
  }

  private event(namespace: string[], status: SubgraphStatus, extra: Partial<LifecycleEventData>): EmittedEvent {
    const data: LifecycleEventData = { event: status, namespace, ...extra };
    return { event: `lifecycle|${keyOf(namespace)}`, data };
  }
}

function keyOf(namespace: readonly string[]): string {
  return namespace.join("|");
}

/** `<node>:<task id>` -> the task id (LangGraph names a task's checkpoint namespace segment so). */
function taskIdOf(segment: string): string {
  const colon = segment.indexOf(":");
  return colon === -1 ? segment : segment.slice(colon + 1);
}

function toolCallOf(input: unknown): string | undefined {
  if (isRecord(input) && isRecord(input.tool_call) && typeof input.tool_call.id === "string") return input.tool_call.id;
  if (Array.isArray(input)) {
    for (const call of input) if (isRecord(call) && typeof call.id === "string" && typeof call.name === "string") return call.id;
  }
  return undefined;
}

/** A task's or run's error as `{error, message}` (an Error would become `{}` in JSON). */
function errorPayload(error: unknown): { error: string; message: string } {
  if (error instanceof Error) return { error: error.name, message: error.message };
  if (isRecord(error) && typeof error.message === "string") {
    return {
      error: typeof error.error === "string" ? error.error : typeof error.name === "string" ? error.name : "Error",
      message: error.message,
    };
  }
  return { error: "Error", message: String(error) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
