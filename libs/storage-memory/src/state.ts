import {
  LocalSignalBus,
  ASSISTANT_DEPENDENTS,
  KeyedMutex,
  erasesDelivery,
  RUN_DEPENDENTS,
  toWireJson,
  toWireObject,
  type Assistant,
  type AssistantDependent,
  type AssistantVersion,
  type Cron,
  type Delivery,
  type Item,
  type StoreVector,
  type JsonValue,
  type PushConfig,
  type Run,
  type RunInternal,
  type RunDependent,
  type RunError,
  type RunResult,
  type RunStatus,
  type SortOrder,
  type StoredEvent,
  type Thread,
  type ThreadTtl,
  type ThreadValuesRef,
} from "@agent-server/core";
import { RunAwareMemorySaver } from "./checkpointer.js";

/**
 * The in-memory data behind one or more `MemoryStorage` instances. Every record is kept as a
 * wire-normalized JSON tree (see `wireIn`) and handed out only as a copy (`wireOut`), so callers never
 * share objects with the store.
 *
 * Concurrency: JavaScript runs one callback at a time, so a read-check-write sequence is atomic as long as
 * it contains no `await`. Every compare-and-set in the repos (first-write-wins results, transition guards,
 * claimNext, cron advance, delivery claims, rejectIfThreadActive) is written that way.
 */
export class MemoryState {
  readonly assistants = new Map<string, AssistantRecord>();
  readonly threads = new Map<string, ThreadRecord>();
  readonly runs = new Map<string, RunRecord>();
  /** thread_id -> run ids, so per-thread lookups never scan every run. */
  readonly runsByThread = new Map<string, Set<string>>();
  /**
   * A2A task lineage, derived from each run's internal at insert (internals never change afterwards):
   * assistant_id -> ids of its task roots (`captureResult` set, no `taskId`), and
   * taskId -> ids of the runs continuing that task. `searchTaskRoots` and `latestContinuation` read
   * only these, never the other runs; `removeRun` keeps them in step.
   */
  readonly taskRootsByAssistant = new Map<string, Set<string>>();
  readonly continuationsByTask = new Map<string, Set<string>>();
  /** run_id -> config_id -> A2A push config; removed with the run. */
  readonly pushConfigs = new Map<string, Map<string, PushConfig>>();
  /** Run ids by status, for the queue (`claimNext`) and lease scans. */
  readonly pendingRuns = new Set<string>();
  readonly runningRuns = new Set<string>();
  /** JSON namespace key -> item key -> item. */
  readonly items = new Map<string, Map<string, ItemRecord>>();
  /** The store index identity the vectors were made with (`StoreRepo.getIndexIdentity`). */
  indexIdentity: string | null = null;
  readonly crons = new Map<string, CronRecord>();
  readonly cronsByAssistant = new Map<string, Set<string>>();
  readonly deliveries = new Map<string, DeliveryRecord>();
  /** run_id -> its resumable stream events. */
  readonly events = new Map<string, EventLog>();
  /** `Storage.withThreadLock`: shared by every instance over this state, as a database's locks are. */
  readonly threadLocks = new KeyedMutex();
  readonly checkpointer = new RunAwareMemorySaver();
  /** One bus for every driver instance over this state, as a database's connections share LISTEN/NOTIFY. */
  readonly signals = new LocalSignalBus("database");
  private seq = 0;

  /** A process-wide insertion counter: the tie-break when timestamps are equal. */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  addRun(record: RunRecord): void {
    const { run_id, thread_id, assistant_id } = record.run;
    this.runs.set(run_id, record);
    addToIndex(this.runsByThread, thread_id, run_id);
    const taskId = continuedTask(record.internal);
    if (taskId !== null) addToIndex(this.continuationsByTask, taskId, run_id);
    else if (record.internal.captureResult === true) addToIndex(this.taskRootsByAssistant, assistant_id, run_id);
    this.indexStatus(run_id, record.run.status);
  }

  /** Changes a run's status and keeps the status indexes in step. The lease stays (`RunRepo.releaseLease`). */
  setRunStatus(record: RunRecord, status: RunStatus, updatedAt: string): void {
    this.pendingRuns.delete(record.run.run_id);
    this.runningRuns.delete(record.run.run_id);
    record.run.status = status;
    record.run.updated_at = updatedAt;
    this.indexStatus(record.run.run_id, status);
  }

  /**
   * Erases a run with what core's run cascade takes along (`RUN_DEPENDENTS`; its result lives on the
   * record) and its lineage index entries. Synchronous, so the cascade is atomic.
   */
  removeRun(runId: string): boolean {
    const record = this.runs.get(runId);
    if (!record) return false;
    this.runs.delete(runId);
    removeFromIndex(this.runsByThread, record.run.thread_id, runId);
    removeFromIndex(this.taskRootsByAssistant, record.run.assistant_id, runId);
    const taskId = continuedTask(record.internal);
    if (taskId !== null) removeFromIndex(this.continuationsByTask, taskId, runId);
    this.pendingRuns.delete(runId);
    this.runningRuns.delete(runId);
    for (const dependent of RUN_DEPENDENTS) this.eraseDependent[dependent](runId);
    return true;
  }

  private readonly eraseDependent: Record<RunDependent, (runId: string) => void> = {
    result: () => undefined, // kept on the run record
    events: (runId) => this.events.delete(runId),
    pushConfigs: (runId) => this.pushConfigs.delete(runId),
    // O(deliveries), as claimDue is: the outbox is small and purged.
    deliveries: (runId) => {
      for (const [id, { delivery }] of this.deliveries)
        if (delivery.run_id === runId && erasesDelivery(delivery)) this.deliveries.delete(id);
    },
  };

  /**
   * Erases an assistant with what core's assistant cascade takes along (`ASSISTANT_DEPENDENTS`; its
   * versions live on the record). Its runs stay. Synchronous, so the cascade is atomic.
   */
  removeAssistant(assistantId: string): boolean {
    if (!this.assistants.has(assistantId)) return false;
    for (const dependent of ASSISTANT_DEPENDENTS) this.eraseAssistantDependent[dependent](assistantId);
    this.assistants.delete(assistantId);
    return true;
  }

  private readonly eraseAssistantDependent: Record<AssistantDependent, (assistantId: string) => void> = {
    versions: () => undefined, // kept on the assistant record
    crons: (assistantId) => {
      for (const cronId of [...(this.cronsByAssistant.get(assistantId) ?? [])]) this.removeCron(cronId);
    },
  };

  runsOfThread(threadId: string): RunRecord[] {
    return [...(this.runsByThread.get(threadId) ?? [])].map((id) => this.runs.get(id)!);
  }

  /** True when the thread has a pending or running run. O(runs of the thread). */
  threadHasActiveRun(threadId: string): boolean {
    return this.runsOfThread(threadId).some((r) => r.run.status === "pending" || r.run.status === "running");
  }

  addCron(record: CronRecord): void {
    this.crons.set(record.cron.cron_id, record);
    addToIndex(this.cronsByAssistant, record.cron.assistant_id, record.cron.cron_id);
  }

  removeCron(cronId: string): boolean {
    const record = this.crons.get(cronId);
    if (!record) return false;
    this.crons.delete(cronId);
    removeFromIndex(this.cronsByAssistant, record.cron.assistant_id, cronId);
    return true;
  }

  private indexStatus(runId: string, status: RunStatus): void {
    if (status === "pending") this.pendingRuns.add(runId);
    else if (status === "running") this.runningRuns.add(runId);
  }
}

export interface AssistantRecord {
  assistant: Assistant;
  seq: number;
  /** Ascending by version. */
  versions: AssistantVersion[];
}

export interface ThreadRecord {
  thread: Thread;
  seq: number;
  /** The thread's TTL; it expires `minutes` after `thread.updated_at` (core's `threadExpiresAt`). */
  ttl?: ThreadTtl;
  /** Where `thread.values` are while they are only in a checkpoint (core's rules/thread-values.ts). */
  valuesRef?: ThreadValuesRef;
}

export interface RunRecord {
  run: Run;
  seq: number;
  internal: RunInternal;
  /** First written result, or null. Never part of `run`. */
  result: RunResult | null;
  /** The error the run failed with (`RunRepo.getError`), or null. Never part of `run`. */
  error: RunError | null;
  attempts: number;
  lease: { owner: string; until: string } | null;
}

export interface ItemRecord {
  item: Item;
  /** Bumped on every put: "newest update first" tie-break. */
  seq: number;
  /** The put's TTL in minutes, and when the item expires (null: never). */
  ttlMinutes: number | null;
  expiresAt: string | null;
  /** Unit vectors of its embedded fields (semantic search), and the put's `index` choice for a re-index. */
  vectors: StoreVector[];
  index: false | string[] | null;
}

export interface CronRecord {
  cron: Cron;
  seq: number;
}

export interface DeliveryRecord {
  delivery: Delivery;
  seq: number;
}

export interface EventLog {
  nextId: number;
  entries: Array<{ event: StoredEvent; expiresAt: string }>;
}

/** A wire-normalized copy of any value; `undefined` is stored as null. */
export function wireIn(value: unknown): JsonValue {
  return toWireJson(value === undefined ? null : value);
}

/** A wire-normalized copy of an object value (metadata, config, values...); `undefined` gives `fallback`. */
export function wireObject<T extends object>(value: T | undefined, fallback: T): T {
  return toWireObject(value === undefined ? fallback : value) as T;
}

/** The copy handed to a caller. Stored records are already JSON, so this is a deep clone. */
export function wireOut<T>(value: T): T {
  return toWireJson(value) as T;
}

export function namespaceKey(namespace: string[]): string {
  return JSON.stringify(namespace);
}

/** Sorts by one field, then by insertion order in the same direction. */
export function sortRecords<R extends { seq: number }>(records: R[], field: (record: R) => unknown, order: SortOrder): R[] {
  const sign = order === "asc" ? 1 : -1;
  return records.sort((a, b) => {
    const c = compareValues(field(a), field(b));
    return sign * (c !== 0 ? c : a.seq - b.seq);
  });
}

/** Nulls sort first ascending, as NULLS FIRST would; strings compare by code unit, like SQL's C collation. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

export function page<T>(rows: T[], offset: number | undefined, limit: number | undefined, defaultLimit: number): T[] {
  const start = Math.max(0, offset ?? 0);
  return rows.slice(start, start + Math.max(0, limit ?? defaultLimit));
}

/** The task a run continues (its internal `taskId`), or null for a task root or an ordinary run. */
export function continuedTask(internal: RunInternal): string | null {
  return typeof internal.taskId === "string" ? internal.taskId : null;
}

function addToIndex(index: Map<string, Set<string>>, key: string, id: string): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(id);
}

function removeFromIndex(index: Map<string, Set<string>>, key: string, id: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) index.delete(key);
}
