import { isStorageOutage, NotFoundError, StorageUnavailableError, type Storage, type StorageFault } from "@agent-server/core";
import type { EngineSignals } from "../signals/engine-signals.js";
import type { RunEnd, RunWaiters } from "./waiters.js";

/**
 * How a caller learns that a run ended, wherever it executes: settlement in this process wakes the
 * run's waiter at once; a run executed by another process, by its end signal (`follow`); a lost signal,
 * by the poll of the run's status every `pollMs` (`await`).
 */
export class RunEnds {
  constructor(
    private readonly storage: Storage,
    private readonly waiters: RunWaiters,
    private readonly signals: EngineSignals,
    private readonly pollMs: number,
    /** Whether an execution of the run is under way in this process (its settlement will wake the waiter). */
    private readonly executingHere: (runId: string) => boolean,
    private readonly stallAnswerMs = STALL_ANSWER_MS,
  ) {}

  /**
   * Wakes this process's waiters of `runId` when another process signals its end. The signal carries the
   * values only when the run's thread is gone; otherwise they are read from the thread, as settlement left it.
   */
  follow(runId: string, threadId: string | undefined): Promise<() => void> {
    return this.signals.onRun(runId, (signal) => {
      if (signal.kind === "stalled") return this.waiters.stalled(runId, signal.fault);
      if (signal.kind !== "end" || !this.waiters.has(runId)) return;
      const { end } = signal;
      if (end.values !== undefined || end.erased) {
        this.waiters.resolve(runId, { ...end, values: end.values ?? null });
        return;
      }
      void (async () => {
        const thread = await this.storage.threads.get(threadId ?? (await this.storage.runs.get(runId))?.thread_id ?? "");
        this.waiters.resolve(runId, { ...end, values: thread?.values ?? null });
      })().catch(() => undefined); // the poll of the run's status takes over
    });
  }

  /**
   * The run's end. A run handed back for a storage fault is kept, but the wait does not go on with it for
   * long: `stallAnswerMs` (5 s) after its first hand-back began for a full disk or a read-only or failing
   * file, which rarely pass within seconds, `OUTAGE_WAIT_MS` (10 s) after it for a database that cannot be
   * reached (a restart is over by then), unless the run ended meanwhile, the wait rejects with a
   * `RunStalledError` naming the fault.
   */
  async await(
    runId: string,
    threadId: string | undefined,
    settled: Promise<RunEnd>,
    options: { admitted?: boolean } = {},
  ): Promise<RunEnd> {
    let timer: NodeJS.Timeout | undefined;
    let stalledOut!: (error: RunStalledError) => void;
    const stalled = new Promise<never>((_resolve, reject) => (stalledOut = reject));
    stalled.catch(() => undefined);
    const unsubscribe = this.waiters.onStall(runId, (fault) => {
      if (timer) return;
      const afterMs = fault.kind === "unreachable" ? Math.max(this.stallAnswerMs, OUTAGE_WAIT_MS) : this.stallAnswerMs;
      timer = setTimeout(() => stalledOut(new RunStalledError(runId, fault)), afterMs);
    });
    try {
      return await this.awaitEnd(runId, threadId, Promise.race([settled, stalled]), options.admitted === true);
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
  }

  private async awaitEnd(runId: string, threadId: string | undefined, settled: Promise<RunEnd>, admitted: boolean): Promise<RunEnd> {
    const pollMs = this.pollMs;
    let firstPause = admitted ? pollMs : 0;
    let outageSince: number | undefined;
    while (true) {
      const end = await Promise.race([settled, delay(firstPause)]);
      firstPause = 0;
      if (end) return end;
      try {
        const polled = await this.poll(runId, threadId, settled, pollMs);
        if (polled) return polled;
        outageSince = undefined;
      } catch (error) {
        if (error instanceof NotFoundError || error instanceof RunStalledError) throw error;
        // A storage read failed (briefly unreachable): the waiter may still fire, as settlement goes on.
        const late = await Promise.race([settled, delay(Math.max(pollMs, POLL_FAILURE_GRACE_MS))]);
        if (late) return late;
        // The database is away: the run goes on (or is handed back and resumed) once it returns, so the
        // wait does too, for as long as an outage is worth waiting out.
        outageSince ??= Date.now();
        if (!isStorageOutage(error) || Date.now() - outageSince > OUTAGE_WAIT_MS) throw error;
      }
    }
  }

  /** One look at the run from storage: its end when it has one, else undefined (after a pause). */
  private async poll(runId: string, threadId: string | undefined, settled: Promise<RunEnd>, pollMs: number): Promise<RunEnd | undefined> {
    const run = await this.storage.runs.get(runId, threadId);
    if (!run) {
      // Settlement may have just deleted it (rollback, temporary thread): its waiter says how it ended.
      const late = await Promise.race([settled, delay(pollMs)]);
      if (late) return late;
      throw new NotFoundError(`Run "${runId}" not found`);
    }
    if (run.status !== "pending" && run.status !== "running") {
      // Settled here and now: the rest of settlement (thread, webhook) is still under way; its waiter
      // fires when it is done. (An execution here that lost the run to another owner ends without
      // settling it: once it is gone, the next round reads the end that owner wrote.)
      if (this.executingHere(runId)) return (await Promise.race([settled, delay(pollMs)])) || undefined;
      // Ended before we waited (or in another process): the thread keeps the values settlement wrote,
      // the run its own error (the thread's `error` is the latest run's; it is read only for a run
      // that failed before runs kept their errors).
      const thread = await this.storage.threads.get(run.thread_id);
      const error =
        run.status === "error" || run.status === "timeout"
          ? ((await this.storage.runs.getError(runId)) ?? runError(thread?.error))
          : undefined;
      return { status: run.status, values: thread?.values ?? null, ...(error ? { error } : {}) };
    }
    return (await Promise.race([settled, delay(pollMs)])) || undefined;
  }
}

/** How long a wait whose storage read failed still gives the run's waiter to fire before it fails. */
const POLL_FAILURE_GRACE_MS = 1000;
/**
 * How long a wait goes on polling a database that is away before it fails with the outage's error (and
 * follows a run handed back for it): a restart or failover is over by then; a caller is not kept longer.
 */
const OUTAGE_WAIT_MS = 10_000;
/**
 * How long a wait still follows a run after its first hand-back for a full disk or a read-only or failing
 * file: such a fault rarely passes within seconds, and the caller is better told (and the run kept).
 */
const STALL_ANSWER_MS = 5_000;

/**
 * A wait that stopped following a run its storage keeps refusing. The run is kept (queued, resumed from
 * its last checkpoint once the database takes writes again); the caller is answered the fault (503/507).
 */
export class RunStalledError extends StorageUnavailableError {
  constructor(
    readonly runId: string,
    readonly fault: StorageFault,
  ) {
    const until = fault.kind === "unreachable" ? "it is reachable again" : "it takes writes again";
    super(`${fault.reason}; run ${runId} is kept and resumes once ${until}`, fault.kind, fault.code);
  }
}

/** A thread's stored error, when it has the `{ error, message }` shape settlement writes. */
function runError(value: unknown): { error: string; message: string } | undefined {
  const candidate = value as { error?: unknown; message?: unknown } | null | undefined;
  if (typeof candidate?.error === "string" && typeof candidate.message === "string") {
    return { error: candidate.error, message: candidate.message };
  }
  return undefined;
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref?.());
}
