import type { AuthFilter } from "../filters.js";
import type { Cron, Metadata, SortOrder } from "../model.js";

export interface NewCron {
  cron_id: string;
  assistant_id: string;
  thread_id?: string | null;
  schedule: string;
  payload?: Record<string, unknown>;
  metadata?: Metadata;
  user_id?: string | null;
  end_time?: string | null;
  next_run_date: string | null;
  on_run_completed?: "delete" | "keep";
  enabled?: boolean;
}

export type CronPatch = Partial<Omit<NewCron, "cron_id" | "assistant_id" | "thread_id">>;

export interface CronSearch {
  assistant_id?: string;
  thread_id?: string;
  enabled?: boolean;
  filter?: AuthFilter;
  limit?: number;
  offset?: number;
  sort_by?: "cron_id" | "assistant_id" | "thread_id" | "next_run_date" | "end_time" | "created_at" | "updated_at";
  sort_order?: SortOrder;
}

export interface CronRepo {
  create(input: NewCron): Promise<Cron>;
  get(cronId: string): Promise<Cron | null>;
  update(cronId: string, patch: CronPatch): Promise<Cron | null>;
  delete(cronId: string): Promise<boolean>;
  /** Default order: created_at desc. limit defaults to 10. */
  search(query: CronSearch): Promise<Cron[]>;
  count(query: Omit<CronSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number>;
  /** Enabled crons with next_run_date <= now, earliest first. */
  listDue(now: string, limit: number): Promise<Cron[]>;
  /**
   * Claims one tick: moves next_run_date from `expected` to `next` (null ends the cron) only if it still
   * equals `expected`. Exactly one of several processes racing for the same tick gets true.
   */
  advance(cronId: string, expected: string, next: string | null): Promise<boolean>;
}
