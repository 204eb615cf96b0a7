import {
  ConflictError,
  matchesAuthFilter,
  nowIso,
  type Cron,
  type CronPatch,
  type CronRepo,
  type CronSearch,
  type NewCron,
} from "@agent-server/core";
import { compareValues, page, sortRecords, wireObject, wireOut, type CronRecord, type MemoryState } from "./state.js";

export class MemoryCronRepo implements CronRepo {
  constructor(private readonly state: MemoryState) {}

  async create(input: NewCron): Promise<Cron> {
    const now = nowIso();
    const cron: Cron = {
      cron_id: input.cron_id,
      assistant_id: input.assistant_id,
      thread_id: input.thread_id ?? null,
      schedule: input.schedule,
      payload: wireObject(input.payload, {}),
      metadata: wireObject(input.metadata, {}),
      user_id: input.user_id ?? null,
      end_time: input.end_time ?? null,
      next_run_date: input.next_run_date,
      on_run_completed: input.on_run_completed ?? "delete",
      enabled: input.enabled ?? true,
      created_at: now,
      updated_at: now,
    };
    if (this.state.crons.has(cron.cron_id)) throw new ConflictError(`cron ${cron.cron_id} already exists`);
    this.state.addCron({ cron, seq: this.state.nextSeq() });
    return wireOut(cron);
  }

  async get(cronId: string): Promise<Cron | null> {
    const record = this.state.crons.get(cronId);
    return record ? wireOut(record.cron) : null;
  }

  /** Fields in the patch replace the stored ones (metadata and payload too). */
  async update(cronId: string, patch: CronPatch): Promise<Cron | null> {
    const record = this.state.crons.get(cronId);
    if (!record) return null;
    const next: Cron = { ...record.cron };
    if (patch.schedule !== undefined) next.schedule = patch.schedule;
    if (patch.payload !== undefined) next.payload = wireObject(patch.payload, {});
    if (patch.metadata !== undefined) next.metadata = wireObject(patch.metadata, {});
    if (patch.user_id !== undefined) next.user_id = patch.user_id;
    if (patch.end_time !== undefined) next.end_time = patch.end_time;
    if (patch.next_run_date !== undefined) next.next_run_date = patch.next_run_date;
    if (patch.on_run_completed !== undefined) next.on_run_completed = patch.on_run_completed;
    if (patch.enabled !== undefined) next.enabled = patch.enabled;
    next.updated_at = nowIso();
    record.cron = next;
    return wireOut(next);
  }

  async delete(cronId: string): Promise<boolean> {
    return this.state.removeCron(cronId);
  }

  /** O(crons) scan, then a sort of the matches. */
  async search(query: CronSearch): Promise<Cron[]> {
    const field = query.sort_by ?? "created_at";
    const matches = sortRecords(this.matching(query), (r) => r.cron[field], query.sort_order ?? "desc");
    return page(matches, query.offset, query.limit, 10).map((r) => wireOut(r.cron));
  }

  async count(query: Omit<CronSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number> {
    return this.matching(query).length;
  }

  /** O(crons) scan. */
  async listDue(now: string, limit: number): Promise<Cron[]> {
    return [...this.state.crons.values()]
      .filter((r) => r.cron.enabled && r.cron.next_run_date !== null && r.cron.next_run_date <= now)
      .sort((a, b) => compareValues(a.cron.next_run_date, b.cron.next_run_date) || a.seq - b.seq)
      .slice(0, Math.max(0, limit))
      .map((r) => wireOut(r.cron));
  }

  async advance(cronId: string, expected: string, next: string | null): Promise<boolean> {
    // Compare and set with no await in between.
    const record = this.state.crons.get(cronId);
    if (!record || record.cron.next_run_date !== expected) return false;
    record.cron = { ...record.cron, next_run_date: next, updated_at: nowIso() };
    return true;
  }

  private matching(query: Omit<CronSearch, "limit" | "offset" | "sort_by" | "sort_order">): CronRecord[] {
    return [...this.state.crons.values()].filter(({ cron: c }) => {
      if (query.assistant_id !== undefined && c.assistant_id !== query.assistant_id) return false;
      if (query.thread_id !== undefined && c.thread_id !== query.thread_id) return false;
      if (query.enabled !== undefined && c.enabled !== query.enabled) return false;
      return matchesAuthFilter(c.metadata, query.filter);
    });
  }
}
