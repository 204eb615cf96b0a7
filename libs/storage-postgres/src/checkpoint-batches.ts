import type { WriteChain } from "@agent-server/core";
import { CheckpointRows } from "./checkpoint-rows.js";

/** Checkpoint writes of one chain queued in the same event-loop turn, sent as one statement. */
export interface CheckpointBatch {
  readonly rows: CheckpointRows;
  /** Resolves once the rows are committed; rejects with the failure that kept them out. */
  readonly committed: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The queued checkpoint writes of each graph call (core's QueueingCheckpointSaver on PostgreSQL). The
 * writes a call queues in one event-loop turn are merged into one batch (CheckpointRows), and the turn
 * after, the batch is one statement, one round trip, where each write was one of its own. A call's
 * batches are sent one after the other, in the order they were queued; one that fails fails the chain
 * (`WriteChain.fail`) and the batches after it fail with that error unsent, so a thread keeps no checkpoint
 * past the gap. A settlement naming the chain takes the batch not yet sent into its own statement (`take`).
 */
export class CheckpointBatches {
  private readonly open = new WeakMap<WriteChain, CheckpointBatch>();
  /** Settles once the chain's last batch sent has (never rejects). */
  private readonly sent = new WeakMap<WriteChain, Promise<void>>();

  /**
   * @param send commits a batch's rows.
   * @param maxValues a batch that binds more values than this is sent without waiting for the turn's end
   *   (PostgreSQL binds at most 65,535 parameters a statement).
   */
  constructor(
    private readonly send: (rows: CheckpointRows) => Promise<unknown>,
    private readonly maxValues = 20_000,
  ) {}

  /** Adds a write's rows to the chain's open batch: resolves once they are committed, rejects if they are not. */
  queue(chain: WriteChain, rows: CheckpointRows): Promise<void> {
    let batch = this.open.get(chain);
    if (batch && batch.rows.size >= this.maxValues) {
      this.close(chain, batch);
      batch = undefined;
    }
    if (!batch) {
      const opened = openBatch();
      this.open.set(chain, opened);
      setImmediate(() => this.close(chain, opened));
      batch = opened;
    }
    batch.rows.addRows(rows);
    return batch.committed;
  }

  /**
   * Once the chain's batches already sent have landed, the batch it still has open (none: undefined),
   * which the caller commits (`resolve`) or fails (`reject`) from then on. Throws the chain's failure.
   */
  async take(chain: WriteChain): Promise<CheckpointBatch | undefined> {
    for (;;) {
      const sent = this.sent.get(chain);
      if (sent === undefined) break;
      await sent;
      if (this.sent.get(chain) === sent) break;
    }
    chain.check();
    const batch = this.open.get(chain);
    this.open.delete(chain);
    return batch;
  }

  /** Commits a taken batch on its own, failing the chain if it does not land. */
  async commit(chain: WriteChain, batch: CheckpointBatch): Promise<void> {
    try {
      await this.send(batch.rows);
    } catch (error) {
      chain.fail(error);
      batch.reject(error);
      throw error;
    }
    batch.resolve();
  }

  private close(chain: WriteChain, batch: CheckpointBatch): void {
    if (this.open.get(chain) !== batch) return;
    this.open.delete(chain);
    const previous = this.sent.get(chain) ?? Promise.resolve();
    const sent = previous.then(async () => {
      try {
        chain.check();
      } catch (error) {
        batch.reject(error);
        return;
      }
      await this.commit(chain, batch).catch(() => undefined);
    });
    this.sent.set(chain, sent);
  }
}

function openBatch(): CheckpointBatch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const committed = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Rejections are the caller's to handle through the chain (and `committed`); never unhandled here.
  committed.catch(() => undefined);
  return { rows: new CheckpointRows(), committed, resolve, reject };
}
