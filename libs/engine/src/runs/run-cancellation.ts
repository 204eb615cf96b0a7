import { NotFoundError, type Run, type Storage } from "@agent-server/core";
import type { CancelAction } from "../engine-options.js";
import type { EngineSignals } from "../signals/engine-signals.js";
import { CancelReasons } from "./cancel-reason.js";
import type { Settlement } from "./settlement.js";
import type { HeldThreadLock, ThreadLock } from "./thread-lock.js";
import type { WorkerPool } from "./worker-pool.js";

/** How runs are cancelled, pending or executing, here or in another process. */
export class RunCancellation {
  constructor(
    private readonly storage: Storage,
    private readonly threadLock: ThreadLock,
    private readonly settlement: Settlement,
    private readonly pool: WorkerPool,
    private readonly signals: EngineSignals,
    /** How long a rollback of a run executing in another process waits for that process to answer. */
    private readonly remoteRollbackMs: number,
  ) {}

  /**
   * Cancels runs. The cancel's terminal write (`interrupted`) is a compare-and-set like settlement's:
   * whichever lands first wins. A pending run ends here; an executing one is aborted and its
   * executor finishes the settlement. `rollback` erases the run and the checkpoints it wrote. `reason`
   * (cancel-reason.ts, default `CancelReasons.request`) is written by the same terminal write, as the
   * run's `cancel_reason`.
   */
  async cancel(
    runIds: string[],
    options: { action?: CancelAction; threadId?: string; heldLock?: HeldThreadLock; reason?: string } = {},
  ): Promise<Run[]> {
    const rollback = options.action === "rollback";
    const reason = options.reason ?? CancelReasons.request;
    const cancelled: Run[] = [];
    for (const runId of runIds) {
      const run = await this.storage.runs.get(runId, options.threadId);
      if (!run) throw new NotFoundError(`Run "${runId}" not found`);
      const done = await this.threadLock.run(run.thread_id, () => this.cancelOne(run, rollback, reason), options.heldLock);
      if (done) cancelled.push(done);
    }
    this.pool.notify();
    return cancelled;
  }

  /** One run's cancel, under its thread's lock; returns the run when this call cancelled it. */
  private async cancelOne(run: Run, rollback: boolean, cancelReason: string): Promise<Run | undefined> {
    const runId = run.run_id;
    const fromPending = await this.storage.runs.transition(runId, "interrupted", { from: ["pending"], cancelReason });
    if (fromPending) {
      await this.settlement.settlePending(fromPending, { rollback });
      return fromPending;
    }
    // A rollback of a run executing here (or, answering its signal, in another process) is left to its
    // executor, which erases it straight from `running`; marking it `interrupted` first would show it
    // ended before it disappears.
    if (rollback && this.pool.abort(runId, { rollback })) return run;
    if (rollback && run.status === "running" && (await this.signals.requestRollback(runId, this.remoteRollbackMs))) return run;
    const fromRunning = await this.storage.runs.transition(runId, "interrupted", { from: ["running"], cancelReason });
    const local = this.pool.abort(runId, { rollback });
    // Executing elsewhere: its executor stops now rather than at its next lease renewal.
    if (fromRunning && !local) this.signals.control(runId, "interrupt");
    if (fromRunning) return fromRunning;
    return local && rollback ? run : undefined;
  }
}
