import { AsyncLocalStorage } from "node:async_hooks";

/** Which run the current async call chain belongs to: graph code's log lines carry it. */
export interface RunContext {
  run_id: string;
  thread_id: string;
  graph_id: string;
  assistant_id: string;
}

const storage = new AsyncLocalStorage<RunContext>();

/** The run whose graph is executing in this async context, if any. */
export function currentRunContext(): RunContext | undefined {
  return storage.getStore();
}

export function withRunContext<T>(context: RunContext, fn: () => T): T {
  return storage.run(context, fn);
}
