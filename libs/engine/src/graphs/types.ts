import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { Pregel } from "@langchain/langgraph/pregel";

/** A compiled LangGraph graph (what `StateGraph#compile()` returns). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CompiledGraph = Pregel<any, any, any, any, any> & {
  checkpointer?: BaseCheckpointSaver | boolean;
  store?: BaseStore;
};

export interface RunnableConfig {
  configurable?: Record<string, unknown>;
  tags?: string[];
  metadata?: Record<string, unknown>;
  recursion_limit?: number;
  [key: string]: unknown;
}
