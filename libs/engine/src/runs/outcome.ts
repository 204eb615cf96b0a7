import { turnValues, type Checkpoint, type DefaultValues, type Interrupt, type JsonValue, type RunResult } from "@agent-server/core";
import type { CompiledGraph } from "../graphs/types.js";
import type { FinalCheckpoint } from "./execute-graph.js";

/** What the checkpointer says about a thread once a run has stopped. */
export interface ThreadSnapshot {
  values: DefaultValues;
  /** Pending interrupts keyed by task id. */
  interrupts: Record<string, Interrupt[]>;
  /**
   * Nodes the graph would run next. Non-empty once it stopped before finishing: at `interrupt()`, at a
   * static breakpoint (`interrupt_before` / `interrupt_after`), or partway through a failed or cancelled step.
   */
  next: string[];
  checkpoint?: Checkpoint;
  /**
   * The values cannot be read back from the checkpoint's channel values (`rebuildsChannels`): settlement
   * writes them to the thread instead of a pointer to the checkpoint (`valuesAt`).
   */
  valuesNotInCheckpoint?: boolean;
}

export async function readThreadSnapshot(graph: CompiledGraph, threadId: string): Promise<ThreadSnapshot> {
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  const interrupts: Record<string, Interrupt[]> = {};
  for (const task of state.tasks ?? []) {
    if (task.interrupts?.length) interrupts[task.id] = task.interrupts as Interrupt[];
  }
  const configurable = state.config?.configurable as Record<string, unknown> | undefined;
  const checkpointId = configurable?.checkpoint_id;
  return {
    values: (state.values ?? {}) as DefaultValues,
    interrupts,
    next: [...(state.next ?? [])],
    checkpoint:
      typeof checkpointId === "string"
        ? { thread_id: threadId, checkpoint_ns: String(configurable?.checkpoint_ns ?? ""), checkpoint_id: checkpointId }
        : undefined,
  };
}

/**
 * The thread's snapshot after a run that finished, from the last checkpoint LangGraph emitted during it
 * (`FinalCheckpoint`), without reading the state back: a completed run's last checkpoint has no next
 * task, so nothing is pending and its values are the final ones. Undefined when the run stopped with
 * work left (an interrupt, a breakpoint) or emitted no checkpoint: `readThreadSnapshot` then reads it,
 * with the interrupts LangGraph saved as pending writes.
 */
export function finalSnapshot(final: FinalCheckpoint | undefined, threadId: string): ThreadSnapshot | undefined {
  const last = final?.last;
  if (!last || (last.next as unknown[] | undefined)?.length !== 0 || (last.tasks?.length ?? 0) !== 0) return undefined;
  const configurable = (last.config as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  const checkpointId = configurable?.checkpoint_id;
  if (typeof checkpointId !== "string") return undefined;
  return {
    values: (last.values ?? {}) as DefaultValues,
    interrupts: {},
    next: [],
    checkpoint: { thread_id: threadId, checkpoint_ns: String(configurable?.checkpoint_ns ?? ""), checkpoint_id: checkpointId },
  };
}

/** The engine's outcome of a finished execution, in the shape settlement records (its turn's messages only). */
export function toRunResult(snapshot: ThreadSnapshot): RunResult {
  const interrupts = Object.values(snapshot.interrupts).flat();
  const reply = defaultReply(snapshot.values);
  return {
    values: turnValues(snapshot.values),
    ...(interrupts.length > 0 ? { interrupts } : {}),
    ...(reply !== undefined ? { reply } : {}),
    ...(snapshot.checkpoint ? { checkpoint: snapshot.checkpoint } : {}),
  };
}

/** A graph's reply unless it declares another: the text of the last AI message in `messages`. */
export function defaultReply(values: DefaultValues): JsonValue | undefined {
  const messages = values.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { getType?: () => string; _getType?: () => string; type?: string; content?: unknown };
    const type = message?.getType?.() ?? message?._getType?.() ?? message?.type;
    if (type === "ai" || type === "AIMessageChunk") return messageText(message.content);
  }
  return undefined;
}

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : part?.type === "text" ? String(part.text ?? "") : "")).join("");
  }
  return "";
}

/**
 * Whether the graph has a channel whose checkpoint holds no value to read back: LangGraph 1.7's
 * `DeltaChannel` (`MessagesDeltaValue`) checkpoints each step's writes only, and LangGraph rebuilds the value
 * from the ancestors' writes when it loads the state. A thread's values then cannot be pointed at in its
 * checkpoint (`valuesAt`, read back by the driver without the graph). Told by name: a graph module may
 * bring its own copy of LangGraph.
 */
export function rebuildsChannels(graph: CompiledGraph): boolean {
  const channels = (graph as { channels?: Record<string, { lc_graph_name?: unknown } | undefined> }).channels ?? {};
  return Object.values(channels).some((channel) => channel?.lc_graph_name === "DeltaChannel");
}
