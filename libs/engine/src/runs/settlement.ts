import {
  toWireJson,
  WireSerializationError,
  type Run,
  type RunInternal,
  type RunResult,
  type RunStatus,
  type Storage,
  type ThreadStatus,
} from "@agent-server/core";
import type { StreamHub } from "../streaming/stream-hub.js";
import type { WebhookOutbox } from "../webhooks/outbox.js";
import type { ThreadSnapshot } from "./outcome.js";
import type { RunLogger } from "./run-executor.js";
import type { EngineRunKwargs } from "./run-request.js";
import type { RunWaiters } from "./waiters.js";

/** A run that reached a terminal status, as settlement hands it to `Engine.onRunSettled` listeners. */
export interface RunSettledEvent {
  /** The stored run row after its terminal write (status, updated_at). */
  run: Run;
  /** The run's terminal status (the one that won: a cancel beats a completion). */
  status: RunStatus;
  /** Server-private facts of the run (A2A marker and lineage), null when it has none. */
  internal: RunInternal | null;
}

/**
 * Called once per run that reached a terminal status and still exists (a rolled-back run is erased:
 * no event). Awaited before waiters are woken; a listener that throws is logged and ignored, it never
 * makes settlement fail.
 */
export type RunSettledListener = (event: RunSettledEvent) => void | Promise<void>;

export type ExecutionOutcome =
  | { kind: "success"; result: RunResult }
  | { kind: "error"; error: unknown }
  /** Stopped by a cancel, a multitask strategy or shutdown. */
  | { kind: "interrupted" };

/**
 * The one place a run ends. Order: (execution has stopped) → record the result for server-marked runs
 * → write the terminal status once (compare-and-set from running) → update the thread → enqueue the
 * webhook → `onRunSettled` listeners → close streams and wake waiters. When another path (a cancel)
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
  async notifySettled(run: Run, internal?: RunInternal | null): Promise<void> {
    if (this.listeners.size === 0) return;
    let event: RunSettledEvent;
    try {
      event = { run, status: run.status, internal: internal === undefined ? await this.storage.runs.getInternal(run.run_id) : internal };
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

  async settle(
    run: Run,
    outcome: ExecutionOutcome,
    snapshot: ThreadSnapshot | undefined,
    options: { captureResult: boolean; rollback: boolean; internal?: RunInternal | null },
  ): Promise<Run | null> {
    if (options.rollback) {
      // Erased straight from `running`: no reader ever sees it end as `interrupted` before it is gone.
      await this.erase(run);
      this.finish(run.run_id, { status: "interrupted", values: null, erased: true });
      return null;
    }
    let status: RunStatus = outcome.kind === "success" ? "success" : outcome.kind === "error" ? "error" : "interrupted";
    let error = outcome.kind === "error" ? outcome.error : undefined;
    if (outcome.kind === "success" && options.captureResult) {
      try {
        if (!this.storage.runs.recordResult) throw new Error("storage driver cannot record run results");
        await this.storage.runs.recordResult(run.run_id, outcome.result);
      } catch (captureError) {
        status = "error";
        error = captureError;
      }
    }
    const won = await this.storage.runs.transition(run.run_id, status, { from: ["running"] });
    if (error !== undefined && won) {
      await this.hub.publish(run.run_id, "error", errorPayload(error), { resumable: kwargsOf(run).resumable });
    }
    const final = won ?? (await this.storage.runs.get(run.run_id));
    if (!final) {
      await this.erase(run);
      this.finish(run.run_id, { status: "interrupted", values: null, erased: true });
      return null;
    }
    await this.updateThread(final, snapshot, error, outcome.kind === "success");
    if (won && kwargsOf(run).webhook) {
      await this.outbox.enqueueRunWebhook(kwargsOf(run).webhook!, final, snapshot?.values ?? null, error);
    }
    // This path reports the end when its own write won, or when a cancel won (engine.cancel leaves an
    // executing run's follow-up work to its executor). A run that settleAbandoned ended was reported there.
    if (won || final.status === "interrupted") await this.notifySettled(final, options.internal);
    if (kwargsOf(run).temporary) await this.storage.threads.delete(run.thread_id);
    this.finish(run.run_id, {
      status: final.status,
      values: snapshot?.values ?? null,
      ...(error !== undefined ? { error: errorPayload(error) } : {}),
    });
    return final;
  }

  /** Ends a run that never started executing (cancelled while pending). */
  async settlePending(run: Run, options: { rollback: boolean }): Promise<void> {
    if (options.rollback) {
      await this.storage.runs.delete(run.run_id);
    } else {
      const thread = await this.storage.threads.get(run.thread_id);
      if (thread?.status === "busy") await this.storage.threads.update(run.thread_id, { status: "idle" });
      if (kwargsOf(run).webhook) await this.outbox.enqueueRunWebhook(kwargsOf(run).webhook!, run, thread?.values ?? null);
      await this.notifySettled(run);
    }
    if (kwargsOf(run).temporary) await this.storage.threads.delete(run.thread_id);
    this.finish(run.run_id, { status: "interrupted", values: null, erased: options.rollback });
  }

  /** A rolled-back run leaves no trace: the run, its result, events and the checkpoints it wrote go. */
  private async erase(run: Run): Promise<void> {
    await this.storage.runs.delete(run.run_id, { checkpoints: true });
    const thread = await this.storage.threads.get(run.thread_id);
    if (thread) await this.storage.threads.update(run.thread_id, { status: "idle", interrupts: {} });
  }

  /**
   * The thread's status after a run, as the official server sets it: `error` after an error; `interrupted`
   * when the graph stopped by itself with work left (`next` non-empty: a static breakpoint or
   * `interrupt()`), or when interrupts are pending; else `idle`. A cancelled execution leaves `next`
   * pointing at the step it was stopped in, which waits on nobody: that thread is `idle`.
   */
  private async updateThread(run: Run, snapshot: ThreadSnapshot | undefined, error: unknown, executionCompleted: boolean): Promise<void> {
    const pending = snapshot !== undefined && Object.keys(snapshot.interrupts).length > 0;
    const stoppedEarly = executionCompleted && snapshot !== undefined && snapshot.next.length > 0;
    const status: ThreadStatus =
      run.status === "error" || run.status === "timeout" ? "error" : pending || stoppedEarly ? "interrupted" : "idle";
    await this.storage.threads.update(run.thread_id, {
      status,
      ...(snapshot ? { values: snapshot.values, interrupts: snapshot.interrupts } : {}),
      error: error === undefined ? null : errorPayload(error),
    });
  }

  private finish(runId: string, outcome: Parameters<RunWaiters["resolve"]>[1]): void {
    this.hub.end(runId);
    this.waiters.resolve(runId, outcome);
  }
}

export function errorPayload(error: unknown): { error: string; message: string } {
  if (error instanceof WireSerializationError) return { error: "SerializationError", message: error.message };
  if (error instanceof Error) return { error: error.name, message: error.message };
  return { error: "Error", message: JSON.stringify(toWireJson(error ?? null)) };
}

function kwargsOf(run: Run): EngineRunKwargs {
  return run.kwargs as EngineRunKwargs;
}
