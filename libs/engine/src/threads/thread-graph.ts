import type { Assistant, RunnableConfig, Storage, Thread } from "@agent-server/core";
import type { GraphRegistry } from "../graphs/registry.js";

/** The graph a thread's state belongs to, and the config to build it with (factory graphs). */
export interface ThreadGraph {
  graphId: string;
  config: RunnableConfig & { configurable: Record<string, unknown> };
}

/**
 * Which graph reads and writes a thread's state. The official server keeps `graph_id` in thread
 * metadata and overwrites it on every run; our admission does not write thread metadata, so the thread's
 * latest run decides (its assistant's graph, or the `graph_id` admission put into the run's config when
 * the assistant is gone), and `metadata.graph_id` / `metadata.assistant_id` (set by
 * `client.threads.create({ graphId })`) cover threads that never ran. Null when none names a loaded graph.
 *
 * The config carries the assistant's config and the thread's identity only — never a run's auth user —
 * since it merely builds the graph to read checkpoints with.
 */
export async function resolveThreadGraph(
  storage: Pick<Storage, "runs" | "assistants">,
  registry: GraphRegistry,
  thread: Thread,
): Promise<ThreadGraph | null> {
  const [latest] = await storage.runs.search({ thread_id: thread.thread_id, limit: 1 });
  if (latest) {
    const assistant = await storage.assistants.get(latest.assistant_id);
    if (assistant && registry.has(assistant.graph_id)) return build(thread, assistant.graph_id, assistant);
    const fromRun = (latest.kwargs.config?.configurable as Record<string, unknown> | undefined)?.graph_id;
    if (typeof fromRun === "string" && registry.has(fromRun)) return build(thread, fromRun, null);
  }
  const graphId = thread.metadata.graph_id;
  if (typeof graphId === "string" && registry.has(graphId)) {
    const assistant = await storage.assistants.get(registry.resolveAssistantId(graphId));
    return build(thread, graphId, assistant?.graph_id === graphId ? assistant : null);
  }
  const assistantId = thread.metadata.assistant_id;
  if (typeof assistantId === "string") {
    const assistant = await storage.assistants.get(registry.resolveAssistantId(assistantId));
    if (assistant && registry.has(assistant.graph_id)) return build(thread, assistant.graph_id, assistant);
  }
  return null;
}

function build(thread: Thread, graphId: string, assistant: Assistant | null): ThreadGraph {
  const base = assistant?.config ?? {};
  return {
    graphId,
    config: {
      ...base,
      configurable: {
        ...base.configurable,
        ...thread.config?.configurable,
        thread_id: thread.thread_id,
        graph_id: graphId,
        ...(assistant ? { assistant_id: assistant.assistant_id } : {}),
      },
    },
  };
}
