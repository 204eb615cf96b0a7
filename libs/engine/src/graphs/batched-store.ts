import { AsyncBatchedStore, type Operation } from "@langchain/langgraph-checkpoint";

interface QueuedOperation {
  operation: Operation;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** The fields of LangGraph's AsyncBatchedStore that its methods share (public class fields in its build). */
interface BatchedStoreFields {
  lg_name: string;
  store: { batch(operations: Operation[]): Promise<unknown[]> };
  queue: Map<number, QueuedOperation>;
  nextKey: number;
  running: boolean;
  processingTask: Promise<void> | null;
  /** Ours: a batch is scheduled for the end of this event-loop turn. */
  batchScheduled?: boolean;
}

let prompted = false;

/**
 * Makes LangGraph's AsyncBatchedStore answer as soon as its batch is done instead of on a timer.
 *
 * LangGraph wraps a graph's store in an AsyncBatchedStore for every graph call (`PregelLoop.initialize`):
 * its loop wakes on `setTimeout(0)` (1 ms in Node) for as long as the call runs, whether or not a node
 * touches the store, and the call's end awaits `stop()`, which waits for the loop's next wake. The server
 * lends every graph its store, as the official server does, so a call ended up to 1 ms after its last step
 * (the timer was often due already: no gain measured in sequential runs), each running graph kept a timer
 * firing every millisecond, and the end of the call came a turn after its last checkpoint write: on
 * PostgreSQL that batch then went out alone instead of in the settlement's statement (3 statements a run
 * instead of 2; docs/engine.md, "Checkpoint writes of a run").
 *
 * Replaced here: operations queued in one event-loop turn still go to the store's `batch` together (at
 * `setImmediate`), nothing runs while nothing is queued, and `stop()` waits only for batches already
 * queued. Applied to the copy of `@langchain/langgraph-checkpoint` the server resolves (the one graphs
 * importing LangGraph from the server's install share); a build whose AsyncBatchedStore no longer has the
 * fields this relies on is left as it is.
 */
export function promptBatchedStores(): void {
  if (prompted) return;
  prompted = true;
  const prototype = AsyncBatchedStore.prototype as unknown as Record<string, unknown>;
  const probe = new AsyncBatchedStore({} as never) as unknown as Partial<BatchedStoreFields>;
  const shaped =
    probe.lg_name === "AsyncBatchedStore" &&
    probe.queue instanceof Map &&
    probe.nextKey === 0 &&
    probe.running === false &&
    typeof prototype.enqueueOperation === "function" &&
    typeof prototype.processBatchQueue === "function";
  if (!shaped) return;

  prototype.start = function start(this: BatchedStoreFields): void {
    this.running = true;
  };
  prototype.stop = async function stop(this: BatchedStoreFields): Promise<void> {
    this.running = false;
    while (this.processingTask) await this.processingTask;
  };
  prototype.enqueueOperation = function enqueueOperation(this: BatchedStoreFields, operation: Operation): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.set(this.nextKey++, { operation, resolve, reject });
      if (this.batchScheduled) return;
      this.batchScheduled = true;
      const previous = this.processingTask ?? Promise.resolve();
      const task: Promise<void> = previous
        .then(() => new Promise<void>((turnEnded) => setImmediate(turnEnded)))
        .then(() => runBatch(this))
        .finally(() => {
          if (this.processingTask === task) this.processingTask = null;
        });
      this.processingTask = task;
    });
  };
}

async function runBatch(batched: BatchedStoreFields): Promise<void> {
  batched.batchScheduled = false;
  const queued = [...batched.queue.values()];
  batched.queue.clear();
  try {
    const results = await batched.store.batch(queued.map((entry) => entry.operation));
    queued.forEach((entry, i) => entry.resolve(results[i]));
  } catch (error) {
    for (const entry of queued) entry.reject(error);
  }
}
