import {
  type DefaultValues,
  isStorageOutage,
  WireSerializationError,
  type Run,
  type RunInternal,
  type RunResult,
  type RunStatus,
  type SettledRun,
  type Storage,
  type WriteChain,
} from "@agent-server/core";
import { admittedGraphId, type EngineObserver } from "../observe/index.js";
import type { StreamHub } from "../streaming/stream-hub.js";
import type { WebhookOutbox } from "../webhooks/outbox.js";
import type { ThreadSnapshot } from "./outcome.js";
import type { RunLogger } from "./run-logger.js";
import type { EngineRunKwargs } from "./run-request.js";
import type { RunEnd, RunWaiters } from "./waiters.js";
import { errorPayload, storedRunError, threadUpdate, type TerminalWrite } from "./settlement-values.js";

import type { ExecutionOutcome, RunSettledEvent, RunSettledListener, SettlementStep } from "./settlement-types.js";

export { errorPayload, storedRunError } from "./settlement-values.js";
export type { ExecutionOutcome, RunSettledEvent, RunSettledListener, SettlementStep } from "./settlement-types.js";

/**
 * The one place a run ends. Order: (execution has stopped) → record the result for server-marked runs
 * → write the terminal status once (compare-and-set from running) → update the thread → enqueue the
 * webhook → `onRunSettled` listeners → close streams and wake waiters. Each step after the terminal
 * write is isolated: one that throws is logged and the next still runs, so waiters and streams always
 * end. When another path (a cancel)
 * already wrote the terminal status, its status stands: this path only does the follow-up work for the
 * status that won.
 */
export class Settlement {
  private readonly listeners = new Set<RunSettledListener>();

  constructor(
    private readonly storage: Storage,
    private readonly hub: StreamHub,
    private readonly outbox: WebhookOutbox,
    private readonly waiters: RunWaiters,
    private readonly logger?: RunLogger,
    private readonly observer?: EngineObserver,
  ) {}

  /** Adds a listener for settled runs; returns a function that removes it. */
  onRunSettled(listener: RunSettledListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells the listeners that `run` (its stored row, terminal status written, thread updated) has ended.
   * `internal` is read from storage when the caller does not have it. Never throws.
   */
  async notifySettled(run: Run, internal?: RunInternal | null, facts: { pushConfigs?: boolean } = {}): Promise<void> {
    if (this.listeners.size === 0) return;
    let event: RunSettledEvent;
    try {
      event = {
        run,
        status: run.status,
        internal: internal === undefined ? await this.storage.runs.getInternal(run.run_id) : internal,
        ...(facts.pushConfigs !== undefined ? { pushConfigs: facts.pushConfigs } : {}),
      };
    } catch (error) {
      this.listenerFailed(run.run_id, error);
      return;
    }
    for (const listener of [...this.listeners]) {
      try {
        await listener(event);
      } catch (error) {
        this.listenerFailed(run.run_id, error);
      }
    }
  }

  private listenerFailed(runId: string, error: unknown): void {
    if (this.logger?.settledListenerFailed) this.logger.settledListenerFailed(runId, error);
    else console.error(`run ${runId}: an onRunSettled listener failed (settlement continues):`, error);
  }

  /**
   * Returns the run as it ended, null when it was erased, or "lost" when `owner` no longer holds it
   * (another owner re-claimed it: nothing was written). `rollbackRequested` is asked until the terminal
   * write has landed: a rollback cancel that reaches the run while its settlement is under way still
   * erases it (once the terminal status is written, the run has ended and it is too late).
   */
  async settle(
    run: Run,
    outcome: ExecutionOutcome,
    snapshot: ThreadSnapshot | undefined,
    options: {
      captureResult: boolean;
      rollbackRequested: () => boolean;
      /** Called once a rollback can no longer erase the run (its terminal write landed and was not rolled back). */
      rollbackClosed?: () => void;
      internal?: RunInternal | null;
      /**
       * The executor's lease owner: the terminal write lands only while it holds the run's lease, and the
       * lease is released when settlement ends. Omitted: no guard, nothing to release.
       */
      owner?: string;
      /** When the execution began (ms since the epoch), for the observer's run duration. */
      startedAt?: number;
      /**
       * Publishes the events that told of the run's stop, which the executor held back (`StopAnnouncements`);
       * idempotent. Called once the run's thread is free, so a client acting on them is admitted; never
       * for a run that was erased or lost.
       */
      announceStop?: () => Promise<void>;
      /**
       * The run's checkpoint writes, still in the commit queue: the terminal write names their chain
       * (`RunSettlement.after`) and follows them; an erase, whose delete does not queue, waits for them.
       */
      queued?: { chain: WriteChain; committed(): Promise<void> };
    },
  ): Promise<Run | null | "lost"> {
    const runId = run.run_id;
    if (options.rollbackRequested()) {
      await options.queued?.committed().catch(() => undefined);
      return this.eraseRolledBack(run);
    }
    let status: RunStatus = outcome.kind === "success" ? "success" : outcome.kind;
    let error = outcome.kind === "error" || outcome.kind === "timeout" ? outcome.error : undefined;
    const owner = options.owner;
    const executionCompleted = outcome.kind === "success";
    // The terminal write, owner-guarded (a stale executor whose run another owner now holds changes
    // nothing), with the run's own error in the same write (it outlives the thread's `error`, which the
    // next run overwrites). A failure here propagates: the run is still `running`, its lease runs out and
    // the reaper requeues it: the next attempt resumes from its last checkpoint and settles then.
    let write: TerminalWrite;
    /**
     * The result written in the same transaction as the terminal write that won (`RunRepo.settle`), so the
     * one stored. (`recordResult` is first-write-wins on its own: an earlier attempt's may be the stored one.)
     */
    let recorded: RunResult | undefined;
    if (this.storage.runs.settle) {
      // A driver that settles in one transaction also records the result (server-marked runs) under the
      // lease's guard, updates the thread and releases the lease with the status. A result that cannot
      // be serialized throws before anything is written: the run then ends `error`, without a result.
      const captured = executionCompleted && options.captureResult ? (outcome as { result: RunResult }).result : undefined;
      // That write updates the thread too, which an erase would not undo: a rollback arriving from now on
      // is too late (refused, as after any terminal write), not one to erase a half-settled run for.
      options.rollbackClosed?.();
      try {
        write = await this.writeSettled(run, status, error, captured, snapshot, executionCompleted, owner, options.queued?.chain);
        if (write.won) recorded = captured;
      } catch (captureError) {
        if (captured === undefined || !(captureError instanceof WireSerializationError)) throw captureError;
        status = "error";
        error = captureError;
        write = await this.writeSettled(run, status, error, undefined, snapshot, executionCompleted, owner, options.queued?.chain);
      }
    } else {
      if (executionCompleted && options.captureResult) {
        // The result is first-write-wins: an execution that lost its run must not record one for it.
        if (owner !== undefined && (await this.leaseLost(runId, owner))) return "lost";
        try {
          if (!this.storage.runs.recordResult) throw new Error("storage driver cannot record run results");
          await this.storage.runs.recordResult(runId, (outcome as { result: RunResult }).result);
        } catch (captureError) {
          // The database going away is no reason to end the run `error`: the executor hands it back.
          if (isStorageOutage(captureError)) throw captureError;
          status = "error";
          error = captureError;
        }
      }
      if (options.rollbackRequested()) return this.eraseRolledBack(run);
      write = {
        won: await this.storage.runs.transition(runId, status, {
          from: ["running"],
          ...(owner !== undefined ? { owner } : {}),
          ...(error !== undefined ? { error: storedRunError(error) } : {}),
        }),
      };
    }
    const won = write.won;
    // A rollback that arrived while the write was on its way: no waiter, stream, listener or webhook has
    // seen the run end yet.
    if (options.rollbackRequested()) return this.eraseRolledBack(run);
    // Lost, not cancelled: this executor's lease lapsed (a stalled process), the run was requeued and
    // another owner executes it (or has ended it). Its settlement is that owner's; streams and waiters
    // here get the end through its signals or their status polls.
    if (!won && owner !== undefined && (await this.leaseLost(runId, owner))) return "lost";
    options.rollbackClosed?.();
    // From here on every step runs even when an earlier one failed; failures are logged.
    const announceStop = () => this.step(runId, "stop-events", () => options.announceStop?.() ?? Promise.resolve());
    // A write that released the lease with the thread's update has freed the thread: the stop can be told.
    if (write.released && write.thread !== undefined) await announceStop();
    if (error !== undefined && won) {
      // The stop's events came before the failure in the graph's stream; they still precede it.
      await announceStop();
      await this.step(runId, "error-event", () =>
        this.hub.publish(runId, "error", errorPayload(error), { resumable: kwargsOf(run).resumable }),
      );
    }
    const final = won ?? (await this.readFinal(run));
    if (!final) {
      await this.step(runId, "thread", () => this.erase(run));
      this.finish(runId, { status: "interrupted", values: null, erased: true }, false);
      return null;
    }
    let thread: RunEnd["thread"];
    if (write.thread !== undefined) {
      thread = write.thread ?? undefined;
    } else {
      await this.step(runId, "thread", async () => (thread = await this.updateThread(final, snapshot, error, executionCompleted)));
    }
    if (won && kwargsOf(run).webhook) {
      await this.step(runId, "webhook", () =>
        this.outbox.enqueueRunWebhook(kwargsOf(run).webhook!, final, snapshot?.values ?? null, error),
      );
    }
    // This path reports the end when its own write won, or when a cancel won (engine.cancel leaves an
    // executing run's follow-up work to its executor).
    if (won || final.status === "interrupted") {
      this.observer?.runEnded?.(final, final.status, admittedGraphId(final), options.startedAt && Date.now() - options.startedAt);
      await this.notifySettled(final, options.internal, write.pushConfigs !== undefined ? { pushConfigs: write.pushConfigs } : {});
    }
    if (kwargsOf(run).temporary) await this.step(runId, "temporary-thread", () => this.storage.threads.delete(run.thread_id));
    // Only now may another process claim the thread's next run: this one's thread update is done.
    if (owner !== undefined && !write.released) await this.step(runId, "lease", () => this.storage.runs.releaseLease(runId, owner));
    await announceStop();
    this.finish(
      runId,
      {
        status: final.status,
        values: snapshot?.values ?? null,
        ...(error !== undefined ? { error: errorPayload(error) } : {}),
        ...(thread && !kwargsOf(run).temporary ? { thread } : {}),
        run: final,
        ...(recorded !== undefined && won ? { result: recorded } : {}),
      },
      kwargsOf(run).temporary === true,
    );
    return final;
  }

  /**
   * Whether `owner` no longer holds the run's lease after its terminal write changed nothing. A cancel
   * leaves the lease to the executor, so a lease still held means a cancel won; an unreadable lease counts
   * as held (the cancel's follow-up runs, as before the guard existed).
   */
  private async leaseLost(runId: string, owner: string): Promise<boolean> {
    try {
      const lease = await this.storage.runs.getLease(runId);
      if (lease?.owner === owner) return false;
      // No lease: a run erased meanwhile (rollback) or one whose lease was cleared; only a live row
      // tells which. Erased: the follow-up below frees the thread, as it always did.
      if (lease === null) return (await this.storage.runs.get(runId)) !== null;
      return true;
    } catch (error) {
      this.stepFailed(runId, "read-final", error);
      return false;
    }
  }

  /** Ends a run that never started executing (cancelled while pending); its terminal write is done. */
  async settlePending(run: Run, options: { rollback: boolean }): Promise<void> {
    const runId = run.run_id;
    if (options.rollback) {
      await this.storage.runs.delete(runId);
    } else {
      let values: DefaultValues | null = null;
      await this.step(runId, "thread", async () => {
        const thread = await this.storage.threads.get(run.thread_id);
        values = thread?.values ?? null;
        if (thread?.status === "busy") await this.storage.threads.update(run.thread_id, { status: "idle" });
      });
      if (kwargsOf(run).webhook) {
        await this.step(runId, "webhook", () => this.outbox.enqueueRunWebhook(kwargsOf(run).webhook!, run, values));
      }
      this.observer?.runEnded?.(run, run.status, admittedGraphId(run), undefined);
      await this.notifySettled(run);
    }
    if (kwargsOf(run).temporary) await this.step(runId, "temporary-thread", () => this.storage.threads.delete(run.thread_id));
    this.finish(runId, { status: "interrupted", values: null, erased: options.rollback }, kwargsOf(run).temporary === true);
  }

  /** Erased straight from `running` (or the status just written): no reader sees it end before it is gone. */
  private async eraseRolledBack(run: Run): Promise<null> {
    await this.storage.runs.delete(run.run_id, { checkpoints: true });
    await this.step(run.run_id, "thread", () => this.freeThread(run.thread_id));
    this.finish(run.run_id, { status: "interrupted", values: null, erased: true }, false);
    return null;
  }

  /**
   * The row after a terminal write this path lost. Another path wrote it: while the executor lives and
   * renews the lease, that is a cancel (`interrupted`), so that is what a failed read falls back to —
   * streams and waiters must not hang on a read.
   */
  private async readFinal(run: Run): Promise<Run | null> {
    try {
      return await this.storage.runs.get(run.run_id);
    } catch (error) {
      this.stepFailed(run.run_id, "read-final", error);
      return { ...run, status: "interrupted" };
    }
  }

  /** A rolled-back run leaves no trace: the run, its result, events and the checkpoints it wrote go. */
  private async erase(run: Run): Promise<void> {
    await this.storage.runs.delete(run.run_id, { checkpoints: true });
    await this.freeThread(run.thread_id);
  }

  private async freeThread(threadId: string): Promise<void> {
    const thread = await this.storage.threads.get(threadId);
    if (thread) await this.storage.threads.update(threadId, { status: "idle", interrupts: {} });
  }

  /** Runs one step after the terminal write; a failure is logged and the next step runs. */
  private async step(runId: string, step: SettlementStep, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      this.stepFailed(runId, step, error);
    }
  }

  private stepFailed(runId: string, step: SettlementStep, error: unknown): void {
    if (this.logger?.settlementStepFailed) this.logger.settlementStepFailed(runId, step, error);
    else console.error(`run ${runId}: settlement step "${step}" failed (the other steps ran):`, error);
  }

  /** The thread's update (`threadUpdate`) after `run`, as its own write. */
  private async updateThread(
    run: Run,
    snapshot: ThreadSnapshot | undefined,
    error: unknown,
    executionCompleted: boolean,
  ): Promise<RunEnd["thread"]> {
    const updated = await this.storage.threads.update(
      run.thread_id,
      threadUpdate(run.status, snapshot, error, executionCompleted, this.storage.threads.storesValuesAt === true),
    );
    return updated ? { status: updated.status, interrupts: updated.interrupts } : undefined;
  }

  /**
   * The terminal write through `RunRepo.settle`, which also records `result` (server-marked runs), and —
   * when the write lands — updates the thread and releases the lease in the same transaction. The
   * thread's update keeps the isolation it had as a step of its own: when the combined write fails (a
   * thread value that cannot be serialized, a lock timeout on the thread row, ...), the result and the
   * status are written without it and the thread step runs on its own afterwards, its failure logged.
   * A result that cannot be serialized throws `WireSerializationError` (nothing written).
   */
  private async writeSettled(
    run: Run,
    status: RunStatus,
    error: unknown,
    result: RunResult | undefined,
    snapshot: ThreadSnapshot | undefined,
    executionCompleted: boolean,
    owner: string | undefined,
    after: WriteChain | undefined,
  ): Promise<TerminalWrite> {
    const settle = (withThread: boolean) =>
      this.storage.runs.settle!(run.run_id, status, {
        from: ["running"],
        ...(after ? { after } : {}),
        ...(owner !== undefined ? { owner } : {}),
        ...(error !== undefined ? { error: storedRunError(error) } : {}),
        ...(result !== undefined ? { result } : {}),
        ...(withThread
          ? {
              thread: threadUpdate(status, snapshot, error, executionCompleted, this.storage.threads.storesValuesAt === true),
              releaseLease: owner !== undefined,
            }
          : {}),
      });
    let settled: SettledRun | null;
    try {
      settled = await settle(true);
    } catch {
      const alone = await settle(false);
      return alone ? { won: alone.run, ...(alone.pushConfigs !== undefined ? { pushConfigs: alone.pushConfigs } : {}) } : { won: null };
    }
    if (!settled) return { won: null };
    return {
      won: settled.run,
      // A driver that did not say (`thread` absent) leaves the thread to step 4 on its own.
      thread:
        settled.thread === undefined
          ? undefined
          : settled.thread && { status: settled.thread.status, interrupts: settled.thread.interrupts },
      released: owner !== undefined,
      ...(settled.pushConfigs !== undefined ? { pushConfigs: settled.pushConfigs } : {}),
    };
  }

  /**
   * The last step, always reached: closes the run's streams and wakes its waiters, here and (signalled)
   * in other processes; `withValues` when the thread is gone (a temporary one), as nobody could read them.
   */
  private finish(runId: string, outcome: RunEnd, withValues: boolean): void {
    try {
      this.hub.end(runId, outcome, { withValues });
    } catch (error) {
      this.stepFailed(runId, "streams", error);
    }
    this.waiters.resolve(runId, outcome);
  }
}

function kwargsOf(run: Run): EngineRunKwargs {
  return run.kwargs as EngineRunKwargs;
}
