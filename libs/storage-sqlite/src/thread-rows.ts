import { nowIso, type NewThread, type Thread, type ThreadHeader } from "@agent-server/core";
import type { TableCodec } from "./sealing.js";

/** A threads row as `SqliteThreadRepo` selects it. */
export interface ThreadRow {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: string;
  config: string;
  status: string;
  state_values: string | null;
  /** A `ThreadValuesRef` (JSON) while the values are only in that checkpoint; then state_values is NULL. */
  values_ref: string | null;
  interrupts: string;
  error: string | null;
}

/** A threads row's header columns, parsed and opened by the threads codec (sealing.ts). */
export function toThreadHeader(row: Omit<ThreadRow, "state_values" | "interrupts">, c: TableCodec<"threads">): ThreadHeader {
  return {
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    metadata: c.value("metadata", row.metadata, {}),
    config: c.value("config", row.config, {}),
    status: row.status as Thread["status"],
    error: c.value("error", row.error, null),
  };
}

/** The whole row: the header, the values and interrupts. */
export function toThread(row: ThreadRow, c: TableCodec<"threads">): Thread {
  const { error, ...header } = toThreadHeader(row, c);
  return {
    ...header,
    values: c.value("state_values", row.state_values, null),
    interrupts: c.value("interrupts", row.interrupts, {}),
    error,
  };
}

/** A new thread's row as `ThreadRepo.create` writes it, with its TTL columns: the parameters of `insertNewThreadSql`. */
export type NewThreadRow = ThreadRow & { ttl_strategy: string | null; ttl_minutes: number | null };

/** The row of a new thread (its JSON written, and sealed, by the threads codec): throws for a value that cannot be serialized. */
export function newThreadRow(input: NewThread, c: TableCodec<"threads">): NewThreadRow {
  const createdAt = input.created_at ?? nowIso();
  return {
    thread_id: input.thread_id,
    created_at: createdAt,
    updated_at: createdAt,
    metadata: c.text("metadata", input.metadata ?? {}),
    config: c.text("config", input.config ?? {}),
    status: input.status ?? "idle",
    state_values: null,
    values_ref: null,
    interrupts: c.text("interrupts", {}),
    error: null,
    ttl_strategy: input.ttl?.strategy ?? null,
    ttl_minutes: input.ttl?.minutes ?? null,
  };
}

/** Inserts a `NewThreadRow` unless the id is taken (then no row is returned): one statement. */
export function insertNewThreadSql(returning: string): string {
  return `INSERT INTO threads (thread_id, created_at, updated_at, metadata, config, status, state_values, values_ref, interrupts, error, ttl_strategy, ttl_minutes)
       VALUES (@thread_id, @created_at, @updated_at, @metadata, @config, @status, @state_values, @values_ref, @interrupts, @error, @ttl_strategy, @ttl_minutes)
       ON CONFLICT (thread_id) DO NOTHING RETURNING ${returning}`;
}
