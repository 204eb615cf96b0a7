import { isGraphDrained } from "@langchain/langgraph";
import {
  isStorageOutage,
  NotFoundError,
  storageFault,
  withEncryptionUser,
  type Run,
  type Storage,
  type StorageFault,
} from "@agent-server/core";
import type { GraphRegistry } from "../graphs/registry.js";
import { admittedGraphId, firstClaimWaitMs, type EngineObserver } from "../observe/index.js";
import type { GraphAccess, GraphUser } from "../graphs/server-runtime.js";
import type { CompiledGraph } from "../graphs/types.js";
import type { ProtocolRuns } from "../protocol/protocol-run.js";
import type { StreamHub } from "../streaming/stream-hub.js";
import type { EmittedEvent } from "../streaming/types.js";
import { traceExecution } from "../tracing/index.js";
import { executeGraph, type FinalCheckpoint } from "./execute-graph.js";
import { finalSnapshot, readThreadSnapshot, rebuildsChannels, toRunResult, type ThreadSnapshot } from "./outcome.js";
import type { EngineRunKwargs } from "./run-request.js";
import { armRunTimeout, runTimeoutMs } from "./run-timeout.js";
import type { RunLogger } from "./run-logger.js";
import type { ExecutionOutcome, Settlement } from "./settlement.js";
import type { ThreadExecution } from "./thread-execution.js";
import type { ActiveExecution, PoolRun } from "./worker-pool.js";
import { runSaver, savesAsynchronously, type RunSaver } from "./run-saver.js";
import { StopAnnouncements } from "./stop-announcements.js";
import { untilStorageReturns } from "./storage-retry.js";

/** Executes a claimed run under `withThreadExecution`, publishing its events, then settles it. */
export class RunExecutor {
  constructor(
    private readonly storage: Storage,
    private readonly registry: GraphRegistry,
    private readonly hub: StreamHub,
    private readonly settlement: Settlement,
    private readonly threads: ThreadExecution,
    private readonly maxAttempts: number,
    private readonly protocol: ProtocolRuns,
    private readonly logger?: RunLogger,
    /** The server's run time limit in ms (run-timeout.ts); undefined or 0: none. */
    private readonly runTimeoutMs?: number,
    private readonly observer?: EngineObserver,
    /** A run was handed back for a storage fault: its waiters, here and elsewhere, hear it (run-ends.ts). */
    private readonly stalled?: (runId: string, fault: StorageFault) => void,
  ) {}

  /** Rejects only after logging: the worker pool that awaits it has nobody to tell. */
  async execute(claimed: PoolRun, execution: ActiveExecution): Promise<void> {
    try {
      // What the run writes is sealed for its user (a custom encryptor picks their key: docs/security.md).
      const user = (claimed.run.kwargs as EngineRunKwargs).config?.configurable?.langgraph_auth_user as GraphUser | undefined;
      await withEncryptionUser(user, () => traceExecution(claimed, () => this.executeAndSettle(claimed, execution)));
    } catch (error) {
      if (this.logger?.runFailed) this.logger.runFailed(claimed.run.run_id, error);
      else console.error(`run ${claimed.run.run_id}: could not be settled (it is requeued when its lease runs out):`, error);
      throw error;
    }
  }

  /** Resolves with how the execution ended (the run's terminal status, or "handed-back", "lost", "erased"). */
  private executeAndSettle({ run, attempt, internal: claimedInternal, newThread }: PoolRun, execution: ActiveExecution): Promise<string> {
    return this.threads.run(run.thread_id, async () => {
      const started = Date.now();
      this.logger?.runStarted(run.run_id, run.thread_id, attempt);
      this.observer?.runStarted?.(run, admittedGraphId(run), attempt, firstClaimWaitMs(run, attempt, started));
      const kwargs = run.kwargs as EngineRunKwargs;
      // The claim marked the thread busy.
      const internal = claimedInternal ?? (await this.storage.runs.getInternal(run.run_id));
      let graph: CompiledGraph | undefined;
      let graphId: string | undefined;
      let snapshot: ThreadSnapshot | undefined;
      let outcome: ExecutionOutcome;
      let lent: RunSaver | undefined;
      let queued: RunSaver | undefined;
      // Told to clients only once settlement has freed the thread; dropped if the run is handed back.
      const stop = new StopAnnouncements();
      const limit = armRunTimeout(execution, runTimeoutMs(kwargs, this.runTimeoutMs));
      try {
        graphId = await this.graphIdOf(run);
        graph = await this.registry.get(graphId, kwargs.config, { access: runAccess(kwargs) });
        // Each earlier attempt ended with its process (it never settled): the run stops here rather than
        // crash the server again and again. Attempts a shutdown handed back do not count.
        if (attempt > this.maxAttempts + (internal?.handBacks ?? 0)) throw new AttemptsExhausted(run.run_id, this.maxAttempts);
        // A first attempt cannot have written a checkpoint yet.
        const resume = attempt > 1 && (await wroteCheckpoint(this.storage, run));
        const signal = execution.controller.signal;
        const final: FinalCheckpoint = {};
        // Nor can a thread its admission created have one: LangGraph's opening read is answered without storage.
        const own = graph.checkpointer;
        if (typeof own === "object")
          lent = runSaver(own, { newThread: attempt === 1 && newThread === true, asyncDurability: savesAsynchronously(graph) });
        const call = { attempt, signal, resume, control: execution.control, graphId, final, saver: lent?.saver };
        await limit.bound(
          (async () => {
            if (kwargs.protocol === true) return this.protocol.execute(run, graph!, graphId!, call);
            for await (const event of executeGraph(run, graph!, call)) {
              if (!stop.hold(event)) await this.publish(run, event);
            }
          })(),
        );
        const streamed = finalSnapshot(final, run.thread_id);
        // Settlement (what tells the client) comes after the run's checkpoints are durable: its own write
        // follows them in the commit queue and is refused if one failed (`RunSettlement.after`). A
        // snapshot read back from storage, or a settlement that is not one write, waits for them instead.
        if (streamed && lent?.chain && kwargs.protocol !== true && this.storage.runs.settle) queued = lent;
        else await lent?.committed();
        if (signal.aborted) throw signal.reason;
        snapshot = streamed ?? (await readThreadSnapshot(graph, run.thread_id));
        if (rebuildsChannels(graph)) snapshot.valuesNotInCheckpoint = true;
        outcome = { kind: "success", result: toRunResult(snapshot) };
      } catch (error) {
        const handBack = execution.timedOut ? undefined : (shutdownHandBack(error, execution) ?? storageHandBack(error, execution));
        if (handBack && (await this.handBack(run, attempt, execution, handBack, error))) {
          this.logger?.runEnded(run.run_id, run.thread_id, "handed-back", Date.now() - started);
          return "handed-back";
        }
        outcome = execution.timedOut
          ? { kind: "timeout", error: execution.timedOut }
          : execution.controller.signal.aborted
            ? { kind: "interrupted" }
            : { kind: "error", error };
        // What the thread holds once the writes the graph queued have landed (or failed).
        queued = undefined;
        await lent?.committed().catch(() => undefined);
        if (graph) snapshot = await readThreadSnapshot(graph, run.thread_id).catch(() => undefined);
        if (snapshot && graph && rebuildsChannels(graph)) snapshot.valuesNotInCheckpoint = true;
      } finally {
        limit.disarm();
      }
      if (kwargs.protocol === true) await this.endProtocolRun(run, graphId ?? run.assistant_id, outcome, snapshot);
      const settle = () =>
        this.settlement.settle(run, outcome, snapshot, {
          captureResult: internal?.captureResult === true,
          rollbackRequested: () => execution.rollback,
          rollbackClosed: () => (execution.rollbackClosed = true),
          internal,
          owner: execution.owner,
          startedAt: started,
          announceStop: () => stop.release((event) => this.publish(run, event)),
          ...(queued?.chain ? { queued: { chain: queued.chain, committed: queued.committed } } : {}),
        });
      let final: Awaited<ReturnType<typeof settle>>;
      try {
        final = await settle().catch(async (error: unknown) => {
          // A checkpoint write of the run failed as it committed (not a storage outage, handed back below):
          // the run ends in error with what the thread kept, as a save LangGraph saw fail would end it.
          if (!queued?.chain?.failed(error) || isStorageOutage(error)) throw error;
          queued = undefined;
          outcome = { kind: "error", error };
          snapshot = graph ? await readThreadSnapshot(graph, run.thread_id).catch(() => undefined) : undefined;
          return settle();
        });
      } catch (error) {
        // The database went away before the terminal write landed: the run goes back to the queue and its
        // next attempt settles it from its last checkpoint. When it is no longer ours to hand back (a cancel
        // or another owner ended it meanwhile), settling again does the follow-up work for that end.
        if (!isStorageOutage(error) || outcome.kind === "interrupted" || outcome.kind === "timeout") throw error;
        if (await this.handBack(run, attempt, execution, "storage", error)) {
          this.logger?.runEnded(run.run_id, run.thread_id, "handed-back", Date.now() - started);
          return "handed-back";
        }
        final = await untilStorageReturns(settle);
      }
      // "lost": another owner re-claimed the run while this execution went on (its lease lapsed).
      const status = final === "lost" ? "lost" : (final?.status ?? "erased");
      this.logger?.runEnded(run.run_id, run.thread_id, status, Date.now() - started);
      return status;
    });
  }

  private publish(run: Run, event: EmittedEvent): Promise<void> {
    return this.hub.publish(run.run_id, event.event, event.data, { resumable: (run.kwargs as EngineRunKwargs).resumable });
  }

  /** The run's last event on its thread's protocol stream; a storage failure here does not stop settlement. */
  private async endProtocolRun(run: Run, graphId: string, outcome: ExecutionOutcome, snapshot: ThreadSnapshot | undefined): Promise<void> {
    try {
      await this.protocol.end(run, graphId, outcome, snapshot);
    } catch (error) {
      this.logger?.settlementStepFailed?.(run.run_id, "protocol-lifecycle", error);
    }
  }

  /**
   * Puts a run a shutdown stopped back in the queue, unsettled: no terminal status, no webhook or push
   * notification, its thread still busy and its A2A task still working. The next attempt (here after a
   * restart, or another process) resumes from the run's last checkpoint. False when the run is no longer
   * this executor's to hand back (a cancel won, or another owner holds it): settlement then ends it.
   */
  private async handBack(run: Run, attempt: number, execution: ActiveExecution, reason: HandBackReason, error: unknown): Promise<boolean> {
    const requeue = () => this.storage.runs.requeue(run.run_id, { owner: execution.owner }, { handBack: true });
    // Its waiters hear of a storage fault at once: the requeue may wait as long as the fault lasts.
    const fault = reason === "storage" ? storageFault(error) : undefined;
    if (fault) this.stalled?.(run.run_id, fault);
    // After a storage fault the database may still be away: the hand-back waits for it. One that answers
    // at once may still refuse writes (a full disk): the pause keeps the run from being claimed, failed
    // and handed back in a tight loop meanwhile.
    if (reason === "storage") await pause(STORAGE_HAND_BACK_PAUSE_MS);
    const requeued = reason === "storage" ? await untilStorageReturns(requeue) : await requeue();
    if (!requeued) return false;
    this.logger?.runRequeued?.(run.run_id, run.thread_id, attempt, reason);
    this.observer?.runRequeued?.(reason);
    return true;
  }

  /**
   * The graph the run was admitted for: admission fixes it in the run's config (as the official server
   * does, which executes `configurable.graph_id`), so a run never reads its assistant again. Runs written
   * without it (imported from elsewhere) name it through their assistant.
   */
  private async graphIdOf(run: Run): Promise<string> {
    const admitted = (run.kwargs as EngineRunKwargs).config?.configurable?.graph_id;
    if (typeof admitted === "string") return admitted;
    const assistant = await this.storage.assistants.get(run.assistant_id);
    if (!assistant) throw new NotFoundError(`Assistant "${run.assistant_id}" not found`);
    return assistant.graph_id;
  }
}

/**
 * Why an execution goes back to the queue unsettled: a shutdown stopped it (`drained` at a step boundary,
 * `shutdown` mid-step), or the database went away under it (`storage`: a checkpoint, event or settlement
 * write failed with a storage fault; the next attempt resumes from the last checkpoint that landed).
 */
type HandBackReason = "drained" | "shutdown" | "storage";

/** How long a run that met a storage fault stays with its executor before it goes back to the queue. */
const STORAGE_HAND_BACK_PAUSE_MS = 500;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** A storage fault that stopped the execution, unless a cancel stopped it first (a cancel ends the run). */
function storageHandBack(error: unknown, execution: ActiveExecution): "storage" | undefined {
  return !execution.controller.signal.aborted && isStorageOutage(error) ? "storage" : undefined;
}

/** Why a shutdown stopped this execution, if one did (and not a cancel, which ends the run). */
function shutdownHandBack(error: unknown, execution: ActiveExecution): "drained" | "shutdown" | undefined {
  const { signal } = execution.controller;
  if (signal.aborted) return signal.reason === "shutdown" ? "shutdown" : undefined;
  return isGraphDrained(error) ? "drained" : undefined;
}

/** What a graph factory is told a run's graph is for: this run (every attempt), with its context and user. */
function runAccess(kwargs: EngineRunKwargs): GraphAccess {
  const user = kwargs.config?.configurable?.langgraph_auth_user as GraphUser | undefined;
  return { accessContext: "threads.create_run", context: kwargs.context, ...(user ? { user } : {}) };
}

/**
 * Whether an attempt continues where an earlier one stopped: the thread's latest checkpoint was written
 * by this run (checkpoint metadata `run_id`), so the run's input is already in the thread's state and
 * must not be applied again. Otherwise (first attempt, or the earlier one stopped before its first
 * checkpoint) the run starts from its input.
 */
async function wroteCheckpoint(storage: Storage, run: Run): Promise<boolean> {
  const latest = await storage.checkpointer.getTuple({ configurable: { thread_id: run.thread_id, checkpoint_ns: "" } });
  return (latest?.metadata as { run_id?: unknown } | undefined)?.run_id === run.run_id;
}

/** The error a run ends with once every attempt it was allowed stopped with its worker. */
export class AttemptsExhausted extends Error {
  override readonly name = "WorkerLost";
  constructor(runId: string, maxAttempts: number) {
    super(`run ${runId} was attempted ${maxAttempts} times and its worker stopped before it finished each time`);
  }
}
