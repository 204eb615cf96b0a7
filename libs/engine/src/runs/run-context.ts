import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";

/** Which run the current async call chain belongs to: graph code's log lines carry it. */
export interface RunContext {
  run_id: string;
  thread_id: string;
  graph_id: string;
  assistant_id: string;
}

/**
 * The run whose graph is executing in this async context, if any: read from the config LangChain keeps
 * for the runnable being executed, whose `configurable` admission stamped with the run's identity. No
 * AsyncLocalStorage of our own: on Node 20 each one enabled adds work to every promise, and a long
 * thread's checkpoint load creates promises by the thousand.
 */
export function currentRunContext(): RunContext | undefined {
  const configurable = (AsyncLocalStorageProviderSingleton.getRunnableConfig() as { configurable?: Record<string, unknown> } | undefined)
    ?.configurable;
  const { run_id, thread_id, graph_id, assistant_id } = configurable ?? {};
  if (typeof run_id !== "string" || typeof thread_id !== "string") return undefined;
  return { run_id, thread_id, graph_id: String(graph_id ?? ""), assistant_id: String(assistant_id ?? "") };
}
