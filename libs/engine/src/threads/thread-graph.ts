import type { Assistant, Run, RunnableConfig, Storage, Thread } from "@agent-server/core";
import type { GraphRegistry } from "../graphs/registry.js";

/** The graph a thread's state belongs to, and the config to build it with (factory graphs). */
export interface ThreadGraph {
  graphId: string;
  config: RunnableConfig & { configurable: Record<string, unknown> };
}

type ThreadGraphStorage = Pick<Storage, "runs" | "assistants" | "checkpointer">;

/**
 * Which graph reads and writes a thread's state. The state lives in the thread's checkpoints, so the graph
 * comes from the thread and what ran on it, never from an assistant row alone: assistants are deleted and
 * repointed at other graphs while the checkpoints stay. In order, the first that names a loaded graph:
 * 1. the graph the thread's latest run ran (`graph_id`, which admission puts into the run's config; for a
 *    run without it, its assistant's graph while the assistant exists);
 * 2. the thread's `metadata.graph_id` (`client.threads.create({ graphId })`, threads admission created);
 * 3. the `graph_id` the thread's latest checkpoint was written with (its metadata has the writer's
 *    configurable scalars): a thread whose runs were all deleted still has its graph;
 * 4. the graph of the assistant named by the thread's `metadata.assistant_id`.
 * Null when none does. The official server keeps `graph_id` in thread metadata and overwrites it on every
 * run; our admission does not write thread metadata, hence the runs and checkpoints.
 *
 * An assistant only lends its config (factory graphs), and only while it exists and is on that graph. The
 * config carries that and the thread's identity only — never a run's auth user — since it merely builds
 * the graph to read checkpoints with.
 */
export async function resolveThreadGraph(
  storage: ThreadGraphStorage,
  registry: GraphRegistry,
  thread: Thread,
): Promise<ThreadGraph | null> {
  const [latest] = await storage.runs.search({ thread_id: thread.thread_id, limit: 1 });
  if (latest) {
    const assistant = await storage.assistants.get(latest.assistant_id);
    const graphId = ranGraphId(latest) ?? assistant?.graph_id;
    if (graphId !== undefined && registry.has(graphId)) return build(thread, graphId, assistant);
  }
  const fromMetadata = thread.metadata.graph_id;
  if (typeof fromMetadata === "string" && registry.has(fromMetadata)) {
    return build(thread, fromMetadata, await storage.assistants.get(registry.resolveAssistantId(fromMetadata)));
  }
  const written = await latestCheckpointWriter(storage, thread.thread_id);
  if (written.graphId !== undefined && registry.has(written.graphId)) {
    const assistant = written.assistantId === undefined ? null : await storage.assistants.get(written.assistantId);
    return build(thread, written.graphId, assistant);
  }
  const assistantId = thread.metadata.assistant_id;
  if (typeof assistantId === "string") {
    const assistant = await storage.assistants.get(registry.resolveAssistantId(assistantId));
    if (assistant && registry.has(assistant.graph_id)) return build(thread, assistant.graph_id, assistant);
  }
  return null;
}

/** The graph admission recorded in the run's config (`configurable.graph_id`). */
function ranGraphId(run: Run): string | undefined {
  const graphId = (run.kwargs.config?.configurable as Record<string, unknown> | undefined)?.graph_id;
  return typeof graphId === "string" ? graphId : undefined;
}

/** `graph_id` and `assistant_id` of whoever wrote the thread's latest root checkpoint, when it says. */
async function latestCheckpointWriter(storage: ThreadGraphStorage, threadId: string): Promise<{ graphId?: string; assistantId?: string }> {
  const tuple = await storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  const metadata = (tuple?.metadata ?? {}) as Record<string, unknown>;
  return {
    graphId: typeof metadata.graph_id === "string" ? metadata.graph_id : undefined,
    assistantId: typeof metadata.assistant_id === "string" ? metadata.assistant_id : undefined,
  };
}

function build(thread: Thread, graphId: string, candidate: Assistant | null): ThreadGraph {
  const assistant = candidate?.graph_id === graphId ? candidate : null;
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
