import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";

/**
 * Where LangGraph looks for a saver lent to a graph call before its own (`Pregel._resolveCheckpointer`;
 * a parent graph lends its saver to subgraphs the same way). Not exported by @langchain/langgraph.
 */
export const LENT_CHECKPOINTER_KEY = "__pregel_checkpointer";

/**
 * The driver's saver, for a run whose thread its own admission created (attempt 1): that thread has no
 * checkpoint yet, so LangGraph's opening read of the thread's latest root checkpoint (the first call of
 * all) is answered "none" without asking storage (a statement, a PostgreSQL round trip). Every other
 * call, including later reads and subgraph namespaces, goes to the saver itself, with `this` the saver
 * (its own state and group commits stay one).
 */
export function newThreadSaver(saver: BaseCheckpointSaver): BaseCheckpointSaver {
  let firstRead = true;
  const getTuple = (config: RunnableConfig): Promise<CheckpointTuple | undefined> => {
    const configurable = config.configurable ?? {};
    const first = firstRead;
    firstRead = false;
    if (first && (configurable.checkpoint_ns ?? "") === "" && configurable.checkpoint_id === undefined) return Promise.resolve(undefined);
    return saver.getTuple(config);
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(saver, {
    get(target, property) {
      if (property === "getTuple") return getTuple;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (!bound.has(property)) bound.set(property, (value as (...args: unknown[]) => unknown).bind(target));
      return bound.get(property);
    },
  });
}
