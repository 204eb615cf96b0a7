/** The thread streaming protocol's engine side: the durable per-thread event log and protocol runs. */
export {
  ThreadEventLog,
  threadStreamKey,
  type ThreadEvent,
  type ThreadEventParams,
  type ThreadEventStream,
  type LoggedThreadEvent,
} from "./thread-event-log.js";
export type { RootStatus } from "./protocol-run.js";
