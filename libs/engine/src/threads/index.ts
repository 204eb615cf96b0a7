/** Thread state through the thread's graph: read, history, updates, and the current checkpoint. */
export {
  ThreadStateService,
  THREAD_BUSY_MESSAGE,
  type CheckpointSelector,
  type HistoryQuery,
  type StateUpdateRequest,
} from "./thread-state-service.js";
export {
  toThreadState,
  toStateCheckpoint,
  emptyThreadState,
  interruptsByTask,
  type ThreadState,
  type ThreadStateTask,
  type TaskCheckpoint,
  type NestedThreadState,
  type StateCheckpoint,
} from "./state-projection.js";
export { resolveThreadGraph, type ThreadGraph } from "./thread-graph.js";
export type { Superstep, StateUpdate } from "./state-updates.js";
