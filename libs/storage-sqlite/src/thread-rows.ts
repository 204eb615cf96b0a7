import type { Thread, ThreadHeader } from "@agent-server/core";
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
