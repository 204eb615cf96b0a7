import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { Storage } from "@agent-server/core";

/**
 * A tiny real LangGraph graph, so checkpoints are written exactly as the engine's runs write them:
 * a root node and a subgraph node (whose checkpoints live in their own namespace, "child:<task id>").
 */
const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

export type GraphState = typeof State.State;

const ChildState = Annotation.Root({
  notes: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export function buildGraph(storage: Storage) {
  const child = new StateGraph(ChildState)
    .addNode("inner", () => ({ notes: ["inner"] }))
    .addEdge(START, "inner")
    .addEdge("inner", END)
    .compile();
  return new StateGraph(State)
    .addNode("step", () => ({ log: ["step"], count: 1 }))
    .addNode("child", async (_state: GraphState, config) => {
      // Invoked with the node's config: the subgraph checkpoints in its own namespace.
      const out = await child.invoke({ notes: [] }, config);
      return { log: out.notes };
    })
    .addEdge(START, "step")
    .addEdge("step", "child")
    .addEdge("child", END)
    .compile({ checkpointer: storage.checkpointer, store: storage.langgraphStore });
}

/** Runs the graph once, as the engine does: `configurable: { thread_id, run_id }`. */
export async function runGraph(storage: Storage, threadId: string, runId: string, label: string): Promise<GraphState> {
  return buildGraph(storage).invoke({ log: [label] }, { configurable: { thread_id: threadId, run_id: runId } });
}

/** Every checkpoint of a thread, all namespaces, newest id first. */
export async function listCheckpoints(storage: Storage, threadId: string): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of storage.checkpointer.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
  return tuples.sort((a, b) => checkpointId(b).localeCompare(checkpointId(a)));
}

export function checkpointId(tuple: CheckpointTuple): string {
  return String(tuple.config.configurable?.checkpoint_id);
}

export function checkpointNs(tuple: CheckpointTuple): string {
  return String(tuple.config.configurable?.checkpoint_ns ?? "");
}

export function runIdOf(tuple: CheckpointTuple): unknown {
  return (tuple.metadata as Record<string, unknown> | undefined)?.run_id;
}

export async function latestTuple(storage: Storage, threadId: string, ns = ""): Promise<CheckpointTuple | undefined> {
  return storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ns } });
}

/** The thread's current state values as the graph reads them. */
export async function graphValues(storage: Storage, threadId: string): Promise<Record<string, unknown>> {
  const snapshot = await buildGraph(storage).getState({ configurable: { thread_id: threadId } });
  return snapshot.values as Record<string, unknown>;
}
