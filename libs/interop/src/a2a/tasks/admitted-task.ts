import type { Run, RunInternal } from "@agent-server/core";
import type { RunEnd, RunEventStream } from "@agent-server/engine";

/** A run just admitted for a task, the promise of its end and, for a streaming message, its live events. */
export interface AdmittedTask {
  taskId: string;
  run: Run;
  end: Promise<RunEnd>;
  /** A new task's internal marker (as admitted, or as read for a repeated message): rendering its end needs no read of it. */
  internal?: RunInternal;
  /** Subscribed before the run could start (SendStreamingMessage only); the consumer closes it. */
  events?: RunEventStream;
}
