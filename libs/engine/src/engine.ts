import {
  LocalSignalBus,
  nowIso,
  type Run,
  type Storage,
  type StoreIndexer,
  type ThreadTtl,
  type ThreadTtlStrategy,
} from "@agent-server/core";
import { threadTtlFor, ttlOptions, type TtlOptions } from "./config/ttl.js";
import { TtlSweeper, type TtlSweepKind } from "./ttl/ttl-sweeper.js";
import { CronScheduler } from "./crons/scheduler.js";
import { graphStore } from "./graphs/graph-store.js";
import { GraphRegistry } from "./graphs/registry.js";
import { admittedGraphId } from "./observe/index.js";
import { Admission, type AdmittedRun } from "./runs/admission.js";
import { newLeaseOwner } from "./runs/lease-owner.js";
import { RunExecutor } from "./runs/run-executor.js";
import type { BackgroundTask } from "./runs/run-logger.js";
import type { AdmissionOptions, RunCreateRequest } from "./runs/run-request.js";
import { Settlement, type RunSettledListener } from "./runs/settlement.js";
import { ThreadExecution } from "./runs/thread-execution.js";
import { ThreadLock, type HeldThreadLock } from "./runs/thread-lock.js";
import { RunCancellation } from "./runs/run-cancellation.js";
import { RunEnds } from "./runs/run-ends.js";
import { RunWaiters, type RunEnd } from "./runs/waiters.js";
import { RunWatch } from "./runs/run-watch.js";
import { WorkerPool } from "./runs/worker-pool.js";
import { ProtocolRuns } from "./protocol/protocol-run.js";
import { ThreadEventLog } from "./protocol/thread-event-log.js";
import { AssistantCache } from "./runs/assistant-cache.js";
import { EngineSignals } from "./signals/engine-signals.js";
import { StreamHub, type RunEventStream } from "./streaming/stream-hub.js";
import type { StreamEvent } from "./streaming/types.js";
import { traceAdmission } from "./tracing/index.js";
import { DEFAULT_OUTBOX_OPTIONS, WebhookOutbox } from "./webhooks/outbox.js";
import type { CancelAction, EngineOptions } from "./engine-options.js";

export type { CancelAction, EngineOptions };

/**
 * The run engine: admission, queue, execution, cancellation, settlement, streaming, webhooks and crons
 * over one storage driver. No HTTP here: the API layer calls these methods.
 */
export class Engine {
  readonly registry: GraphRegistry;
  readonly hub: StreamHub;
  /** Every thread's events of the thread streaming protocol, durable and replayable (`ThreadEventLog`). */
  readonly threadEvents: ThreadEventLog;
  readonly outbox: WebhookOutbox;
  readonly crons: CronScheduler;
  /** Signals to and from the other processes on the same storage (or within this one). */
  readonly signals: EngineSignals;
  /** Assistant reads of the admission path, from memory while this engine is alone on its database. */
  readonly assistants: AssistantCache;
  private readonly pollMs: number;
  private readonly waiters = new RunWaiters();
  private readonly threadExecution = new ThreadExecution();
  private readonly threadLock: ThreadLock;
  /** This process's lease owner, announced to the storage's presence (if any) before it claims a run. */
  private readonly owner: string;
  private readonly admission: Admission;
  private readonly settlement: Settlement;
  private readonly pool: WorkerPool;
  private readonly ends: RunEnds;
  private readonly watch: RunWatch;
  private readonly cancellation: RunCancellation;
  private readonly storage: Storage;
  private admitting = false;
  private stopping = false;
  private housekeeping: NodeJS.Timeout | undefined;
  private readonly ttl: TtlOptions;
  /** The TTL sweeps of threads and store items (`ttl/ttl-sweeper.ts`). */
  readonly sweeper: TtlSweeper;
  /** langgraph.json `store.index`, shared by graphs' store and the store API; absent: queries are ignored. */
  readonly storeIndex: StoreIndexer | undefined;

  constructor(private readonly options: EngineOptions) {
    this.storage = options.storage;
    this.threadLock = new ThreadLock(this.storage);
    this.owner = newLeaseOwner({ announced: this.storage.presence !== undefined });
    this.signals = new EngineSignals(this.storage.signals ?? new LocalSignalBus(), (error) => this.backgroundFailed("signals", error));
    this.pollMs = options.pollMs ?? (this.signals.crossProcess ? 5000 : 1000);
    this.ttl = options.ttl ?? ttlOptions({});
    this.storeIndex = options.storeIndex;
    const langgraphStore = graphStore(this.storage, this.ttl, this.storeIndex);
    this.registry = new GraphRegistry({ checkpointer: this.storage.checkpointer, langgraphStore }, options.schemas);
    this.hub = new StreamHub(this.storage.events, options.eventTtlMs ?? 60 * 60_000, this.signals, {
      intervalMs: this.pollMs,
      isLive: async (runId) => {
        const run = await this.storage.runs.get(runId);
        return run?.status === "pending" || run?.status === "running";
      },
    });
    this.threadEvents = new ThreadEventLog(this.storage.events, options.eventTtlMs ?? 60 * 60_000, this.signals, this.pollMs);
    this.outbox = new WebhookOutbox(
      this.storage,
      { ...DEFAULT_OUTBOX_OPTIONS, ...options.outbox },
      {
        loopback: options.loopback,
        urlPolicy: options.urlPolicy,
        signingKey: options.webhookSigningKey,
        onRefused: options.logger?.deliveryRefused?.bind(options.logger),
        onFinished: options.observer?.deliveryFinished?.bind(options.observer),
        onError: (error) => this.backgroundFailed("deliveries", error),
      },
    );
    this.settlement = new Settlement(this.storage, this.hub, this.outbox, this.waiters, options.logger, options.observer);
    this.assistants = new AssistantCache(this.storage, () => this.signals.alone, Date.now, options.assistantCacheMs);
    this.admission = new Admission(
      this.storage,
      this.assistants,
      this.registry,
      (ids, action, heldLock, reason) => this.cancel(ids, { action, heldLock, reason }),
      options.runTimeoutMs,
      () => this.threadTtl(),
    );
    const executor = new RunExecutor(
      this.storage,
      this.registry,
      this.hub,
      this.settlement,
      this.threadExecution,
      options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      new ProtocolRuns(this.threadEvents),
      options.logger,
      options.runTimeoutMs,
      options.observer,
      (runId, fault) => {
        this.waiters.stalled(runId, fault);
        this.signals.stalled(runId, fault);
      },
    );
    this.pool = new WorkerPool(
      this.storage,
      // A run that ends frees its thread (and a worker): runs queued behind it may be claimable anywhere.
      (claimed, execution) => executor.execute(claimed, execution).finally(() => this.signals.wake()),
      ({ run, attempt }, reason) => {
        options.logger?.runRequeued?.(run.run_id, run.thread_id, attempt, reason);
        options.observer?.runRequeued?.(reason);
      },
      {
        workers: options.workers ?? 4,
        leaseMs: options.leaseMs ?? 30_000,
        pollMs: this.pollMs,
        owner: this.owner,
        onError: (task, error) => this.backgroundFailed(task, error),
      },
    );
    this.ends = new RunEnds(
      this.storage,
      this.waiters,
      this.signals,
      this.pollMs,
      (runId) => this.pool.active.has(runId),
      options.stallAnswerMs,
    );
    this.watch = new RunWatch(this.storage, this.hub, this.waiters, this.ends, (request, admission) => this.admit(request, admission));
    this.cancellation = new RunCancellation(
      this.storage,
      this.threadLock,
      this.settlement,
      this.pool,
      this.signals,
      options.remoteRollbackMs ?? 2000,
    );
    this.crons = new CronScheduler(
      this.storage,
      (cron, request) =>
        this.createRun(request, {
          ...(cron.thread_id ? { threadId: cron.thread_id } : {}),
          // A tick runs as the user who created the cron (identity only: their session is long gone).
          ...(cron.user_id ? { auth: { user: { identity: cron.user_id }, permissions: [] } } : {}),
        }),
      options.cronPollMs ?? 5000,
      (_cron, error) => this.backgroundFailed("crons", error),
    );
    this.sweeper = new TtlSweeper(this.storage, this.ttl, {
      withThreadLock: (threadId, fn) => this.threadLock.run(threadId, fn),
      deleteThreadEvents: (threadId) => this.threadEvents.delete(threadId),
      swept: (kind, counts) => {
        options.logger?.ttlSwept?.(kind, counts);
        for (const [name, count] of Object.entries(counts)) options.observer?.ttlSwept?.(name as TtlSweepKind, count);
      },
      failed: (task, error) => this.backgroundFailed(task, error),
    });
  }

  /**
   * The TTL a new thread gets: the request's (`ttl` in minutes, `strategy` else the configured one), else
   * langgraph.json `checkpointer.ttl.default_ttl`, else none. For every place that creates a thread.
   */
  threadTtl(requested?: { strategy?: ThreadTtlStrategy | null; ttl: number } | null): ThreadTtl | undefined {
    return threadTtlFor(this.ttl.threads, requested);
  }

  /** langgraph.json `store.ttl` as the store API applies it: the TTL of a put without one, and whether reads refresh by default. */
  get storeTtl(): { defaultMinutes?: number; refreshOnRead: boolean } {
    const { defaultMinutes, refreshOnRead } = this.ttl.store;
    return { ...(defaultMinutes ? { defaultMinutes } : {}), refreshOnRead };
  }

  /**
   * Starts reading graphs' source schemas (in the background), creates system assistants, takes back the
   * runs a dead process of this host left running (they resume as their next attempt), and starts
   * workers, webhook delivery, crons and event expiry.
   */
  async start(): Promise<void> {
    // Seconds of CPU in a worker: begun now, so schema requests (MCP tools/list) find them ready or under way.
    this.registry.startSchemaExtraction();
    await this.registry.ensureSystemAssistants(this.storage);
    await this.storage.presence?.announce(this.owner);
    await this.pool.recoverAbandoned();
    await this.signals.start({
      wake: () => this.pool.notify(),
      control: (runId, action) => {
        if (!this.pool.active.has(runId)) return "absent";
        return this.pool.abort(runId, { rollback: action === "rollback" }) ? "accepted" : "refused";
      },
      followed: (runId) => this.hub.followedElsewhere(runId),
    });
    this.admitting = true;
    this.stopping = false;
    this.pool.start();
    this.outbox.start();
    this.crons.start();
    this.sweeper.start();
    this.housekeeping = setInterval(
      () => void this.storage.events.deleteExpired(nowIso()).catch((error: unknown) => this.backgroundFailed("event-expiry", error)),
      60_000,
    );
    this.housekeeping.unref?.();
  }

  /** Runs executing in this process now (claimed here and not yet ended): a gauge, read at scrape time. */
  get executingRuns(): number {
    return this.pool.active.size;
  }

  /** True from the start of `stop`: this process claims no more runs (a readiness check answers 503). */
  get draining(): boolean {
    return this.stopping;
  }

  /**
   * Drains this process (rolling restarts, docs/operations.md): claims no more runs and lets executing
   * runs end on their own for `graceMs`; then asks each run still executing to stop at its next step
   * boundary and hands it back to the queue (pending, its next attempt resumes from its checkpoint),
   * and after `drainMs` more hands back the runs still inside a step. Runs are still admitted meanwhile
   * (they wait, pending, for another process or the next start), and signals (cancels from other
   * processes) are followed until no run executes here.
   */
  async stop(graceMs = 10_000, drainMs = 0): Promise<void> {
    this.stopping = true;
    clearInterval(this.housekeeping);
    await this.sweeper.stop();
    this.registry.stopSchemaExtraction();
    await this.crons.stop();
    await this.pool.stop(graceMs, drainMs);
    this.admitting = false;
    this.signals.stop();
    await this.outbox.stop();
  }

  /**
   * Admits a run. On a thread, admission (the multitask strategy's check, insert and cancels) is one
   * section under the thread's lock, so admissions through different processes apply one after another.
   */
  async createRun(request: RunCreateRequest, options: AdmissionOptions = {}): Promise<Run> {
    return (await this.admit(request, options)).run;
  }

  /** `createRun`, also telling whether the run was claimed by a worker of this process at admission. */
  private async admit(request: RunCreateRequest, options: AdmissionOptions): Promise<{ run: Run; claimedHere: boolean }> {
    if (!this.admitting) throw new Error("the engine is not admitting runs (stopped or not started)");
    // With a worker free here, a run due now is inserted claimed by it and starts at once: no claim's round
    // trips, no wake-up. The driver claims it only when no other run of its thread is active or held
    // (`RunRepo.create`'s `claim`); otherwise it is queued as usual.
    const claim = request.after_seconds ? undefined : this.pool.reserve();
    let admitted: AdmittedRun;
    try {
      admitted = await traceAdmission(request, options, () => this.admitLocked(request, { ...options, claim }));
    } catch (error) {
      if (claim) this.pool.release();
      throw error;
    }
    const { run, internal, newThread } = admitted;
    this.options.observer?.runAdmitted?.(run, admittedGraphId(run));
    if (claim && run.status === "running") {
      this.pool.adopt({ run, attempt: 1, internal, newThread });
      // Answered as admitted, `pending`, as the official server answers every run it creates: claimed in
      // the same step, the run is `running` for any read that follows.
      return { run: { ...run, status: "pending" }, claimedHere: true };
    }
    if (claim) this.pool.release();
    this.pool.notify();
    this.signals.wake();
    // Deferred (`after_seconds`): this process looks again when it is due; the poll is the fallback.
    const dueInMs = Date.parse(run.created_at) - Date.now();
    if (dueInMs > 0 && dueInMs < MAX_TIMER_MS) setTimeout(() => this.pool.notify(), dueInMs + 5).unref?.();
    return { run, claimedHere: false };
  }

  private admitLocked(request: RunCreateRequest, options: AdmissionOptions & { cancelled?: boolean }): Promise<AdmittedRun> {
    const unshared =
      options.threadId === undefined ||
      options.createThread?.thread_id === options.threadId ||
      (options.loaded?.newThread === true && options.loaded.thread?.thread_id === options.threadId);
    if (unshared) return this.admission.admit(request, options);
    return this.threadLock.run(options.threadId!, (heldLock) => this.admission.admit(request, { ...options, heldLock }), options.heldLock);
  }

  /**
   * Admits a run that is cancelled from the start: one write of an `interrupted` run (validated by
   * admission like any other, never queued, so no process can execute it), then the follow-up of a
   * cancel while pending (thread, webhook, settled listeners, waiters). For ending an A2A task that waits
   * for input: its task history gets a final run that renders CANCELED. Stateless requests are refused.
   */
  async createCancelledRun(request: RunCreateRequest, options: AdmissionOptions & { threadId: string }): Promise<Run> {
    if (!this.admitting) throw new Error("the engine is not admitting runs (stopped or not started)");
    const { run } = await this.admitLocked(request, { ...options, cancelled: true });
    this.options.observer?.runAdmitted?.(run, admittedGraphId(run));
    await this.settlement.settlePending(run, { rollback: false });
    return run;
  }

  /**
   * Creates a run and returns its live event stream, subscribed before the run can start. `signal`
   * (a client that went away) ends the stream early; the run itself is not affected. `end`: the stream
   * closes with an `end` event once the run has ended (run-stream-end.ts).
   */
  streamRun(
    request: RunCreateRequest,
    options: AdmissionOptions = {},
    stream: { signal?: AbortSignal; end?: boolean } = {},
  ): Promise<{ run: Run; events: AsyncIterable<StreamEvent> }> {
    return this.watch.streamRun(request, options, stream);
  }

  /**
   * Joins a run's stream: events stored for a resumable run after `lastEventId`, then live events until
   * the run ends. A run that has already ended yields only its stored events. `checkpointId` (with no
   * `lastEventId`, or "-1"): the stored events after that checkpoint of the run, all of them when it is
   * not one of the run's. `end`: an `end` event closes the stream once the run has ended.
   */
  joinStream(
    runId: string,
    options: { threadId?: string; lastEventId?: string; checkpointId?: string; end?: boolean; signal?: AbortSignal } = {},
  ): AsyncGenerator<StreamEvent> {
    return this.watch.joinStream(runId, options);
  }

  /**
   * Resolves when the run has ended, with its final status and the thread's values. Settlement in this
   * process wakes the waiter at once; a run executed by another process, by its end signal, else (a lost
   * signal) by the poll of its status.
   */
  waitRun(runId: string, threadId?: string): Promise<RunEnd> {
    return this.watch.waitRun(runId, threadId);
  }

  /**
   * Creates a run and waits for its end. The waiter exists before the run can start, so even a
   * stateless run whose temporary thread (and so the run itself) is deleted at the end is seen ending.
   */
  createRunAndWait(request: RunCreateRequest, options: AdmissionOptions = {}): Promise<{ run: Run; end: RunEnd }> {
    return this.watch.createRunAndWait(request, options);
  }

  /**
   * Creates a run and hands back, once it is admitted, a promise of its end. Admission errors reject
   * the call itself, so an HTTP handler can answer them with a status code before it starts a
   * long-lived response; the waiter exists before the run can start, as in `createRunAndWait`.
   * With `watch.stream`, also the run's live events, subscribed before it can start as in `streamRun`
   * (for a caller that needs both, such as A2A's SendStreamingMessage); `events.close()` ends the
   * subscription early, and the run's end ends it in any case.
   */
  createRunWatched(
    request: RunCreateRequest,
    options: AdmissionOptions = {},
    watch: { stream?: boolean } = {},
  ): Promise<{ run: Run; end: Promise<RunEnd>; events?: RunEventStream }> {
    return this.watch.createRunWatched(request, options, watch);
  }

  private backgroundFailed(task: BackgroundTask, error: unknown): void {
    if (this.options.logger?.backgroundFailed) this.options.logger.backgroundFailed(task, error);
    else console.error(`background ${task} round failed`, error);
  }

  /**
   * Cancels runs (`runs/run-cancellation.ts`): a pending run ends here, an executing one is aborted and
   * its executor finishes the settlement; `rollback` erases the run and the checkpoints it wrote.
   */
  cancel(
    runIds: string[],
    options: { action?: CancelAction; threadId?: string; heldLock?: HeldThreadLock; reason?: string } = {},
  ): Promise<Run[]> {
    return this.cancellation.cancel(runIds, options);
  }

  /**
   * Registers `listener` for runs of this process that reach a terminal status (success, error,
   * timeout, interrupted — including runs cancelled while pending and runs out of attempts), once
   * per run. It is called after the terminal status is written and the thread is updated, before
   * waiters are woken (so whatever it writes exists when `waitRun` resolves). A rolled-back run is
   * erased and not reported. A listener that throws is logged; settlement goes on. Returns a function
   * that removes the listener.
   */
  onRunSettled(listener: RunSettledListener): () => void {
    return this.settlement.onRunSettled(listener);
  }

  /**
   * Runs `fn` under the thread's execution lock (`withThreadExecution`): no run of this thread executes
   * in this process meanwhile, runs claimed later start only after `fn` settles, and `fn` holds the
   * thread's lock across processes (`withThreadLock`), so no run of the thread is admitted anywhere
   * meanwhile. For checks that must see the thread at rest, such as A2A resume validation (current
   * interrupted run and checkpoint) before admitting the run that resumes it. `fn` must not wait for a
   * run of the same thread to end. Calls `fn` makes on the thread pass the held lock on (`heldLock` of
   * `createRun`, `createRunWatched`, `createCancelledRun`, `cancel`).
   */
  withThreadExecution<T>(threadId: string, fn: (heldLock: HeldThreadLock) => Promise<T>): Promise<T> {
    return this.threadExecution.run(threadId, () => this.threadLock.run(threadId, fn));
  }

  /**
   * Runs `fn` holding the thread's lock across every process over this storage (`Storage.withThreadLock`;
   * within this process only for a driver without it): admissions, cancels and other sections of the
   * thread wait meanwhile, runs already executing go on. Calls `fn` makes on the thread pass the held lock
   * on (as for `withThreadExecution`). For thread maintenance that must not interleave with admission:
   * copy, prune, delete. Keep it short.
   */
  withThreadLock<T>(threadId: string, fn: (heldLock: HeldThreadLock) => Promise<T>): Promise<T> {
    return this.threadLock.run(threadId, fn);
  }
}

const DEFAULT_MAX_ATTEMPTS = 3;
/** Node's timers fire at once past 2^31 - 1 ms (~24.8 days); later runs are left to the poll. */
const MAX_TIMER_MS = 2 ** 31 - 1;
