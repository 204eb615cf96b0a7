import {
  ConflictError,
  isExpired,
  jsonContains,
  matchesAuthFilter,
  nowIso,
  planThreadCopy,
  threadExpiresAt,
  valuesFromCheckpoint,
  type ExpiredThread,
  type NewThread,
  type PruneStrategy,
  type Thread,
  type ThreadHeader,
  type ThreadPatch,
  type ThreadRepo,
  type ThreadSearch,
  type ThreadTtlStrategy,
} from "@agent-server/core";
import { page, sortRecords, wireIn, wireObject, wireOut, type MemoryState, type ThreadRecord } from "./state.js";

export class MemoryThreadRepo implements ThreadRepo {
  readonly storesValuesAt = true;
  constructor(private readonly state: MemoryState) {}

  async create(input: NewThread, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Thread> {
    const thread = newThreadRow(input);
    const existing = this.state.threads.get(input.thread_id);
    if (existing) {
      if (options?.ifExists === "do_nothing") return wireOut(await this.withValues(existing));
      throw new ConflictError(`thread ${input.thread_id} already exists`);
    }
    addThread(this.state, thread, input);
    return wireOut(thread);
  }

  async get(threadId: string): Promise<Thread | null> {
    const record = this.state.threads.get(threadId);
    return record ? wireOut(await this.withValues(record)) : null;
  }

  /**
   * The thread with its values: read from the checkpoint its pointer names (O(state)) and kept in the
   * record unless a newer pointer or write replaced it meanwhile.
   */
  private async withValues(record: ThreadRecord): Promise<Thread> {
    const ref = record.valuesRef;
    if (!ref) return record.thread;
    const values = await valuesFromCheckpoint(this.state.checkpointer, record.thread.thread_id, ref);
    const thread = { ...record.thread, values: values === null ? null : wireObject(values, {}) };
    if (record.valuesRef === ref) {
      record.thread = thread;
      delete record.valuesRef;
    }
    return thread;
  }

  async getHeader(threadId: string): Promise<ThreadHeader | null> {
    const record = this.state.threads.get(threadId);
    if (!record) return null;
    const { values: _values, interrupts: _interrupts, ...header } = record.thread;
    return wireOut(header);
  }

  async update(threadId: string, patch: ThreadPatch): Promise<Thread | null> {
    const record = this.state.threads.get(threadId);
    if (!record) return null;
    // Normalize everything first: a value that cannot be serialized leaves the thread untouched.
    const next: Thread = { ...record.thread };
    if (patch.metadata !== undefined) next.metadata = { ...record.thread.metadata, ...wireObject(patch.metadata, {}) };
    if (patch.config !== undefined) next.config = wireObject(patch.config, {});
    if (patch.status !== undefined) next.status = patch.status;
    if (patch.values !== undefined) next.values = patch.values === null ? null : wireObject(patch.values, {});
    else if (patch.valuesAt !== undefined) next.values = null;
    if (patch.interrupts !== undefined) next.interrupts = wireObject(patch.interrupts, {});
    if ("error" in patch) next.error = wireIn(patch.error);
    next.updated_at = nowIso();
    if (patch.ttl !== undefined) record.ttl = patch.ttl === null ? undefined : { ...patch.ttl };
    record.thread = next;
    if (patch.values !== undefined) delete record.valuesRef;
    else if (patch.valuesAt !== undefined) record.valuesRef = { ...patch.valuesAt, keys: [...patch.valuesAt.keys] };
    return wireOut(await this.withValues(record));
  }

  /** O(runs of the thread); MemorySaver.deleteThread scans every pending-writes key (O(all writes)). */
  async delete(threadId: string): Promise<boolean> {
    if (!this.state.threads.delete(threadId)) return false;
    for (const runId of [...(this.state.runsByThread.get(threadId) ?? [])]) this.state.removeRun(runId);
    await this.state.checkpointer.deleteThread(threadId);
    return true;
  }

  /** O(threads) scan (O(ids) with `ids`), then a sort of the matches. */
  async search(query: ThreadSearch): Promise<Thread[]> {
    if (query.values !== undefined) await this.keepAllValues();
    const field = query.sort_by ?? "created_at";
    const matches = sortRecords(this.matching(query), (r) => r.thread[field], query.sort_order ?? "desc");
    const threads: Thread[] = [];
    for (const record of page(matches, query.offset, query.limit, 10)) threads.push(wireOut(await this.withValues(record)));
    return threads;
  }

  async count(query: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order" | "ids">): Promise<number> {
    if (query.values !== undefined) await this.keepAllValues();
    return this.matching(query).length;
  }

  /** Every pointer turned into values, so a filter on values sees them: O(threads). */
  private async keepAllValues(): Promise<void> {
    for (const record of [...this.state.threads.values()]) if (record.valuesRef) await this.withValues(record);
  }

  async copy(sourceThreadId: string, newThreadId: string): Promise<Thread | null> {
    const source = this.state.threads.get(sourceThreadId);
    if (!source) return null;
    if (this.state.threads.has(newThreadId)) throw new ConflictError(`thread ${newThreadId} already exists`);
    const now = nowIso();
    const thread: Thread = { ...wireOut(source.thread), thread_id: newThreadId, created_at: now, updated_at: now };
    // Runs (oldest first, so insertion order is preserved) as core's copy plan gives them, synchronously.
    // addRun indexes the remapped internals.
    const runs = this.state.runsOfThread(sourceThreadId).sort((a, b) => a.seq - b.seq);
    const plan = planThreadCopy(
      sourceThreadId,
      newThreadId,
      runs.map((r) => ({ run_id: r.run.run_id, internal: r.internal, result: r.result })),
    );
    // The copy keeps the source's TTL; its clock starts at the copy.
    this.state.threads.set(newThreadId, {
      thread,
      seq: this.state.nextSeq(),
      ...(source.ttl ? { ttl: { ...source.ttl } } : {}),
      ...(source.valuesRef ? { valuesRef: { ...source.valuesRef } } : {}),
    });
    plan.forEach((copy, i) => {
      const { run, attempts, error } = runs[i];
      const { run_id, thread_id, internal, result, lease } = copy;
      const copied = { run: { ...wireOut(run), run_id, thread_id }, seq: this.state.nextSeq(), internal, result, attempts, lease };
      this.state.addRun({ ...copied, error: error ? { ...error } : null });
    });
    await this.state.checkpointer.copyThread(sourceThreadId, newThreadId);
    const copied = this.state.threads.get(newThreadId);
    return wireOut(copied ? await this.withValues(copied) : thread);
  }

  async prune(threadIds: string[], strategy: PruneStrategy): Promise<number> {
    let pruned = 0;
    for (const threadId of new Set(threadIds)) {
      if (!this.state.threads.has(threadId)) continue;
      if (strategy === "delete") {
        if (await this.delete(threadId)) pruned += 1;
      } else {
        this.state.checkpointer.pruneKeepLatest(threadId);
        pruned += 1;
      }
    }
    return pruned;
  }

  /** O(threads). */
  async listExpired(now: string, limit: number): Promise<ExpiredThread[]> {
    return [...this.state.threads.values()]
      .map((record) => ({ record, expiresAt: threadExpiresAt(record.thread.updated_at, record.ttl) }))
      .filter(({ record, expiresAt }) => isExpired(expiresAt, now) && !this.state.threadHasActiveRun(record.thread.thread_id))
      .sort((a, b) => Date.parse(a.expiresAt!) - Date.parse(b.expiresAt!) || a.record.seq - b.record.seq)
      .slice(0, Math.max(0, limit))
      .map(({ record }) => ({ thread_id: record.thread.thread_id, strategy: record.ttl!.strategy }));
  }

  async sweep(threadId: string, now: string): Promise<ThreadTtlStrategy | null> {
    // Checked and acted on without an await in between the check and the first write.
    const record = this.state.threads.get(threadId);
    if (!record?.ttl || !isExpired(threadExpiresAt(record.thread.updated_at, record.ttl), now)) return null;
    if (this.state.threadHasActiveRun(threadId)) return null;
    const { strategy } = record.ttl;
    if (strategy === "delete") {
      await this.delete(threadId);
    } else {
      record.thread = { ...record.thread, updated_at: now };
      this.state.checkpointer.pruneKeepLatest(threadId);
    }
    return strategy;
  }

  private matching(query: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order">): ThreadRecord[] {
    const candidates = query.ids ? query.ids.flatMap((id) => this.state.threads.get(id) ?? []) : [...this.state.threads.values()];
    return [...new Set(candidates)].filter(({ thread: t }) => {
      if (query.status !== undefined && t.status !== query.status) return false;
      if (query.metadata && !jsonContains(t.metadata, query.metadata)) return false;
      if (query.values && (t.values === null || !jsonContains(t.values, query.values))) return false;
      return matchesAuthFilter(t.metadata, query.filter);
    });
  }
}

/** The thread `create` writes for `input` (its values normalized: throws for one that cannot be serialized). */
export function newThreadRow(input: NewThread): Thread {
  const createdAt = input.created_at ?? nowIso();
  return {
    thread_id: input.thread_id,
    created_at: createdAt,
    updated_at: createdAt,
    metadata: wireObject(input.metadata, {}),
    config: wireObject(input.config, {}),
    status: input.status ?? "idle",
    values: null,
    interrupts: {},
    error: null,
  };
}

/** Stores a thread made by `newThreadRow` (the caller checked that its id is free). */
export function addThread(state: MemoryState, thread: Thread, input: NewThread): void {
  state.threads.set(thread.thread_id, { thread, seq: state.nextSeq(), ...(input.ttl ? { ttl: { ...input.ttl } } : {}) });
}
