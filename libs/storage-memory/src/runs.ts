import {
  addMs,
  claimOnCreate,
  ConflictError,
  InvalidInputError,
  jsonContains,
  NotFoundError,
  nowIso,
  ThreadExistsError,
  toWireObject,
  type ClaimedRun,
  type NewRun,
  type NewThread,
  type RunCreateOptions,
  type Run,
  type RunError,
  type RunInternal,
  type RunRepo,
  type RequeueGuard,
  type RunLease,
  type RunResult,
  type RunSearch,
  type RunSettlement,
  type RunStatus,
  type SettledRun,
  type TaskRuns,
  type Thread,
} from "@agent-server/core";
import { addThread, newThreadRow } from "./threads.js";
import { continuedTask, page, wireIn, wireObject, wireOut, type MemoryState, type RunRecord } from "./state.js";

export class MemoryRunRepo implements RunRepo {
  constructor(private readonly state: MemoryState) {}

  async create(input: NewRun, options?: RunCreateOptions): Promise<Run> {
    return this.insert(input, options);
  }

  /** The thread and the run, checked and then written with no await in between: atomic. */
  async createWithThread(thread: NewThread, input: NewRun, options?: RunCreateOptions): Promise<Run> {
    if (input.thread_id !== thread.thread_id) throw new InvalidInputError(`run ${input.run_id} is not of thread ${thread.thread_id}`);
    return this.insert(input, options, thread);
  }

  private insert(input: NewRun, options: RunCreateOptions | undefined, newThread?: NewThread): Run {
    const now = nowIso();
    // Normalized before anything is written: a value that cannot be serialized writes nothing.
    const thread = newThread ? newThreadRow(newThread) : undefined;
    const run: Run = {
      run_id: input.run_id,
      thread_id: input.thread_id,
      assistant_id: input.assistant_id,
      created_at: input.created_at ?? now,
      updated_at: now,
      status: input.status ?? "pending",
      metadata: wireObject(input.metadata, {}),
      kwargs: wireObject(input.kwargs, {}),
      multitask_strategy: input.multitask_strategy ?? "reject",
      cancel_reason: input.cancel_reason ?? null,
    };
    const internal = wireObject(options?.internal, {});
    const error = options?.error ? storedError(options.error) : null;
    const claim = claimOnCreate(input, options, now);
    // Check and insert with no await in between: atomic.
    if (thread) {
      if (this.state.threads.has(thread.thread_id)) throw new ThreadExistsError(`thread ${thread.thread_id} already exists`);
    } else if (!this.state.threads.has(input.thread_id)) throw new NotFoundError(`thread ${input.thread_id} not found`);
    if (this.state.runs.has(input.run_id)) throw new ConflictError(`run ${input.run_id} already exists`);
    if (options?.rejectIfThreadActive && this.state.threadHasActiveRun(input.thread_id)) {
      throw new ConflictError(`thread ${input.thread_id} has an active run`);
    }
    // Claimed as claimNext claims, unless the thread is held (claimNext's eligibility) or has a run queued
    // before this one: then inserted as asked. A new thread has neither.
    const claimed = claim !== undefined && !this.state.threadHasActiveRun(input.thread_id) && !this.threadHeld(input.thread_id, null, now);
    if (claimed) run.status = "running";
    const lease = claimed ? { owner: claim.owner, until: addMs(now, claim.leaseMs) } : null;
    // A new thread is written busy when its run is claimed: no second write of it.
    if (thread) addThread(this.state, claimed ? { ...thread, status: "busy" } : thread, newThread!);
    this.state.addRun({ run, seq: this.state.nextSeq(), internal, result: null, error, attempts: claimed ? 1 : 0, lease });
    if (claimed && !thread) this.markBusy(input.thread_id, now);
    return wireOut(run);
  }

  async get(runId: string, threadId?: string): Promise<Run | null> {
    const record = this.state.runs.get(runId);
    if (!record || (threadId !== undefined && record.run.thread_id !== threadId)) return null;
    return wireOut(record.run);
  }

  /** O(runs of the thread) with `thread_id`, else O(all runs); then a sort of the matches. */
  async search(query: RunSearch): Promise<Run[]> {
    const candidates = query.thread_id !== undefined ? this.state.runsOfThread(query.thread_id) : [...this.state.runs.values()];
    const statuses = query.status === undefined ? null : Array.isArray(query.status) ? query.status : [query.status];
    const matches = candidates
      .filter((r) => (!statuses || statuses.includes(r.run.status)) && (!query.metadata || jsonContains(r.run.metadata, query.metadata)))
      .sort(newestFirst);
    return page(matches, query.offset, query.limit, 10).map((r) => wireOut(r.run));
  }

  async transition(
    runId: string,
    to: RunStatus,
    options?: { from?: readonly RunStatus[]; owner?: string; error?: RunError; cancelReason?: string },
  ): Promise<Run | null> {
    const record = this.state.runs.get(runId);
    return record ? this.transitionNow(record, to, options) : null;
  }

  private transitionNow(
    record: RunRecord,
    to: RunStatus,
    options?: { from?: readonly RunStatus[]; owner?: string; error?: RunError; cancelReason?: string },
  ): Run | null {
    const error = options?.error ? storedError(options.error) : null;
    if (options?.from && !options.from.includes(record.run.status)) return null;
    if (options?.owner !== undefined && record.lease?.owner !== options.owner) return null;
    this.state.setRunStatus(record, to, nowIso());
    if (error) record.error = error;
    if (options?.cancelReason !== undefined) record.run.cancel_reason = options.cancelReason;
    return wireOut(record.run);
  }

  /** O(pending runs) scan plus O(runs of a candidate's thread) for the per-thread check. */
  async claimNext(options: { owner: string; leaseMs: number; now?: string }): Promise<ClaimedRun | null> {
    const now = options.now ?? nowIso();
    const eligible = [...this.state.pendingRuns]
      .map((id) => this.state.runs.get(id)!)
      .filter((r) => r.run.created_at <= now)
      .sort(oldestFirst);
    const busyThreads = new Set<string>();
    for (const record of eligible) {
      const threadId = record.run.thread_id;
      if (busyThreads.has(threadId)) continue;
      if (this.threadHeld(threadId, record, now)) {
        busyThreads.add(threadId);
        continue;
      }
      const claimedAt = nowIso();
      this.state.setRunStatus(record, "running", claimedAt);
      record.lease = { owner: options.owner, until: addMs(now, options.leaseMs) };
      record.attempts += 1;
      this.markBusy(threadId, claimedAt);
      return { run: wireOut(record.run), attempt: record.attempts, internal: wireOut(record.internal) };
    }
    return null;
  }

  /** Whether a run of the thread other than `except` is running or held under a live lease, whatever its status. */
  private threadHeld(threadId: string, except: RunRecord | null, now: string): boolean {
    return this.state
      .runsOfThread(threadId)
      .some((r) => r !== except && (r.run.status === "running" || (r.lease !== null && r.lease.until > now)));
  }

  /** A claim marks the run's thread busy. */
  private markBusy(threadId: string, at: string): void {
    const thread = this.state.threads.get(threadId);
    if (thread) thread.thread = { ...thread.thread, status: "busy", updated_at: at };
  }

  async renewLeases(runIds: string[], owner: string, leaseMs: number): Promise<number> {
    const until = addMs(nowIso(), leaseMs);
    let renewed = 0;
    for (const runId of new Set(runIds)) {
      const record = this.state.runs.get(runId);
      if (record?.run.status === "running" && record.lease?.owner === owner) {
        record.lease.until = until;
        renewed += 1;
      }
    }
    return renewed;
  }

  async getLease(runId: string): Promise<{ owner: string; expires_at: string } | null> {
    const lease = this.state.runs.get(runId)?.lease;
    return lease ? { owner: lease.owner, expires_at: lease.until } : null;
  }

  async releaseLease(runId: string, owner: string): Promise<boolean> {
    const record = this.state.runs.get(runId);
    if (!record || record.run.status === "running" || record.lease?.owner !== owner) return false;
    record.lease = null;
    return true;
  }

  /** O(running runs). A running run without a lease (not taken through claimNext) never expires. */
  async listExpiredLeases(now: string, limit: number): Promise<Run[]> {
    return [...this.state.runningRuns]
      .map((id) => this.state.runs.get(id)!)
      .filter((r) => r.lease !== null && r.lease.until < now)
      .sort(byLeaseEnd)
      .slice(0, Math.max(0, limit))
      .map((r) => wireOut(r.run));
  }

  /** O(running runs). */
  async listLeases(limit: number): Promise<RunLease[]> {
    return [...this.state.runningRuns]
      .map((id) => this.state.runs.get(id)!)
      .filter((r) => r.lease !== null)
      .sort(byLeaseEnd)
      .slice(0, Math.max(0, limit))
      .map((r) => ({ run: wireOut(r.run), owner: r.lease!.owner, expires_at: r.lease!.until, attempt: r.attempts }));
  }

  /** Check and set with no await in between: atomic. */
  async requeue(runId: string, guard: RequeueGuard, options?: { handBack?: boolean }): Promise<ClaimedRun | null> {
    const record = this.state.runs.get(runId);
    const lease = record?.lease;
    if (!record || record.run.status !== "running" || !lease) return null;
    if (guard.expiredBefore === undefined && guard.owner === undefined) return null;
    if (guard.expiredBefore !== undefined && !(lease.until < guard.expiredBefore)) return null;
    if (guard.owner !== undefined && lease.owner !== guard.owner) return null;
    this.state.setRunStatus(record, "pending", nowIso());
    record.run.metadata = { ...record.run.metadata, run_attempt: record.attempts + 1 };
    if (options?.handBack) record.internal = { ...record.internal, handBacks: (record.internal.handBacks ?? 0) + 1 };
    record.lease = null;
    return { run: wireOut(record.run), attempt: record.attempts };
  }

  async delete(runId: string, options?: { checkpoints?: boolean }): Promise<boolean> {
    const record = this.state.runs.get(runId);
    if (!record) return false;
    this.state.removeRun(runId);
    if (options?.checkpoints) await this.state.checkpointer.deleteRunCheckpoints(record.run.thread_id, runId);
    return true;
  }

  async getError(runId: string): Promise<RunError | null> {
    const error = this.state.runs.get(runId)?.error;
    return error ? { ...error } : null;
  }

  /** O(1): the state keeps the set of pending runs. */
  async countPending(): Promise<number> {
    return this.state.pendingRuns.size;
  }

  async getInternal(runId: string): Promise<RunInternal | null> {
    const record = this.state.runs.get(runId);
    return record ? wireOut(record.internal) : null;
  }

  async recordResult(runId: string, result: RunResult): Promise<void> {
    // Serialize first (throws WireSerializationError, nothing stored), then check-and-set with no await.
    const stored = toWireObject(result) as unknown as RunResult;
    const record = this.state.runs.get(runId);
    if (!record || record.result !== null) return;
    record.result = stored;
  }

  async settle(runId: string, to: RunStatus, options: RunSettlement): Promise<SettledRun | null> {
    // Everything is normalized before anything changes: a value that cannot be serialized writes nothing.
    const stored = options.result ? (toWireObject(options.result) as unknown as RunResult) : null;
    const thread = options.thread;
    const values = thread?.values === undefined ? undefined : thread.values === null ? null : wireObject(thread.values, {});
    const interrupts = thread?.interrupts === undefined ? undefined : wireObject(thread.interrupts, {});
    const threadError = thread && "error" in thread ? wireIn(thread.error) : undefined;
    const record = this.state.runs.get(runId);
    if (!record) return null;
    // No await from here on: nothing sees the result, the status, the thread and the lease apart.
    if (stored && record.result === null && (options.owner === undefined || record.lease?.owner === options.owner)) record.result = stored;
    const run = this.transitionNow(record, to, options);
    if (!run) return null;
    if (options.releaseLease && options.owner !== undefined && record.lease?.owner === options.owner) record.lease = null;
    const pushConfigs = (this.state.pushConfigs.get(continuedTask(record.internal) ?? runId)?.size ?? 0) > 0;
    if (!thread) return { run, pushConfigs };
    const threadRecord = this.state.threads.get(record.run.thread_id);
    if (!threadRecord) return { run, thread: null, pushConfigs };
    const next: Thread = { ...threadRecord.thread, status: thread.status, updated_at: nowIso() };
    if (values !== undefined) {
      next.values = values;
      delete threadRecord.valuesRef;
    } else if (thread.valuesAt !== undefined) {
      next.values = null;
      threadRecord.valuesRef = { ...thread.valuesAt, keys: [...thread.valuesAt.keys] };
    }
    if (interrupts !== undefined) next.interrupts = interrupts;
    if (threadError !== undefined) next.error = threadError;
    threadRecord.thread = next;
    return { run, thread: { status: next.status, interrupts: wireOut(next.interrupts) }, pushConfigs };
  }

  async getResult(runId: string): Promise<RunResult | null> {
    const result = this.state.runs.get(runId)?.result;
    return result ? wireOut(result) : null;
  }

  /**
   * Reads only `taskRootsByAssistant` (or the thread's runs, when that set is smaller):
   * O(k log k) for the k candidates, never a scan of the other runs.
   */
  async searchTaskRoots(query: { assistant_id: string; thread_id?: string; limit?: number; offset?: number }): Promise<Run[]> {
    const roots = this.state.taskRootsByAssistant.get(query.assistant_id);
    if (!roots) return [];
    let candidates: RunRecord[];
    if (query.thread_id === undefined) {
      candidates = [...roots].map((id) => this.state.runs.get(id)!);
    } else {
      const ofThread = this.state.runsByThread.get(query.thread_id);
      if (!ofThread) return [];
      const [small, large] = ofThread.size < roots.size ? [ofThread, roots] : [roots, ofThread];
      candidates = [...small].filter((id) => large.has(id)).map((id) => this.state.runs.get(id)!);
    }
    return page(candidates.sort(newestFirst), query.offset, query.limit, 10).map((r) => wireOut(r.run));
  }

  async getTask(taskId: string): Promise<TaskRuns | null> {
    const record = this.state.runs.get(taskId);
    if (!record) return null;
    return { run: wireOut(record.run), internal: wireOut(record.internal), latest: await this.latestContinuation(taskId) };
  }

  /** O(runs continuing the task), from `continuationsByTask`. */
  async latestContinuation(taskId: string): Promise<Run | null> {
    let latest: RunRecord | null = null;
    for (const id of this.state.continuationsByTask.get(taskId) ?? []) {
      const record = this.state.runs.get(id)!;
      if (latest === null || newestFirst(record, latest) < 0) latest = record;
    }
    return latest ? wireOut(latest.run) : null;
  }

  /** O(k log k) for the k runs continuing the task, from `continuationsByTask`. */
  async listContinuations(taskId: string, options?: { limit?: number }): Promise<Run[]> {
    const candidates = [...(this.state.continuationsByTask.get(taskId) ?? [])].map((id) => this.state.runs.get(id)!);
    return page(candidates.sort(oldestFirst), 0, options?.limit, 100).map((r) => wireOut(r.run));
  }
}

/** Only the two strings, whatever else the caller's object carries. */
function storedError(error: RunError): RunError {
  return { error: String(error.error), message: String(error.message) };
}

function newestFirst(a: RunRecord, b: RunRecord): number {
  if (a.run.created_at !== b.run.created_at) return a.run.created_at < b.run.created_at ? 1 : -1;
  return b.seq - a.seq;
}

/** Oldest lease end first (records that hold a lease), then insertion order. */
function byLeaseEnd(a: RunRecord, b: RunRecord): number {
  const [x, y] = [a.lease!.until, b.lease!.until];
  return x < y ? -1 : x > y ? 1 : a.seq - b.seq;
}

function oldestFirst(a: RunRecord, b: RunRecord): number {
  return -newestFirst(a, b);
}
