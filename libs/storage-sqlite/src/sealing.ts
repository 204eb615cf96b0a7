import { isSealedJson, NO_ENCRYPTION, toWireJson, type FieldCipher } from "@agent-server/core";
import { parseJson, type RowCodec } from "./db.js";

/**
 * How a column holds what it seals (encryption at rest, docs/security.md):
 * - `json`: the whole JSON value, stored as `{"$enc":"v1.<key id>.<...>"}`;
 * - `keys`: metadata: only the values of the configured JSON keys (`cipher.sealKeys`), so metadata
 *   search and the SQL that reads system fields (`run_attempt`, `created_by`) keep working;
 * - `message`: `runs.internal`, whose `message` member alone is user content: the lineage columns
 *   generated from `taskId` / `captureResult` (migration 4) and requeue's `handBacks` read the rest in SQL;
 * - `text`: a plain text column (a push token), stored as the sealed object's JSON while a key is set.
 */
export type SealMode = "json" | "keys" | "message" | "text";

export interface SealedColumn {
  table: string;
  column: string;
  /** Names where the value lives: a ciphertext copied into another column does not open. */
  aad: string;
  mode: SealMode;
}

const col = (table: string, column: string, mode: SealMode, aad = `${table}.${column}`): SealedColumn => ({ table, column, aad, mode });

/**
 * Every column that holds what users send, per table. Ids, timestamps, statuses, urls and the
 * checkpoint metadata stay plaintext (looked up, sorted and filtered in SQL). The checkpoint blobs are
 * sealed by the saver (`SEALED_BLOBS`, checkpointer.ts).
 */
export const SEALED = {
  threads: {
    // Named as the value is everywhere else (the API, PostgreSQL): what a custom encryptor is told.
    state_values: col("threads", "state_values", "json", "threads.values"),
    config: col("threads", "config", "json"),
    interrupts: col("threads", "interrupts", "json"),
    error: col("threads", "error", "json"),
    metadata: col("threads", "metadata", "keys"),
  },
  runs: {
    kwargs: col("runs", "kwargs", "json"),
    error: col("runs", "error", "json"),
    internal: col("runs", "internal", "message"),
    metadata: col("runs", "metadata", "keys"),
  },
  run_results: { result: col("run_results", "result", "json") },
  // One aad for both: setLatest copies a version's stored metadata into the assistant row as it is.
  assistants: { metadata: col("assistants", "metadata", "keys") },
  assistant_versions: { metadata: col("assistant_versions", "metadata", "keys", "assistants.metadata") },
  crons: { payload: col("crons", "payload", "json"), metadata: col("crons", "metadata", "keys") },
  // A2A push deliveries carry the config's token and credentials in their headers.
  deliveries: { payload: col("deliveries", "payload", "json"), headers: col("deliveries", "headers", "json") },
  events: { data: col("events", "data", "json") },
  store_items: { value: col("store_items", "value", "json") },
  push_configs: { token: col("push_configs", "token", "text"), authentication: col("push_configs", "authentication", "json") },
} as const;

export type SealedTable = keyof typeof SEALED;

/**
 * The saver's blobs, sealed by core's `sealedSerde` (type marked `<type>+aes`). The writes' aad is the
 * name LangGraph's PostgresSaver gives its table (`checkpoint_writes`), so both drivers name it alike.
 */
export const CHECKPOINT_BLOB = { table: "checkpoints", column: "checkpoint", aad: "checkpoints.checkpoint" } as const;
export const WRITE_BLOB = { table: "writes", column: "value", aad: "checkpoint_writes.value" } as const;
export const SEALED_BLOBS = [CHECKPOINT_BLOB, WRITE_BLOB] as const;

export const SEALED_COLUMNS: readonly SealedColumn[] = Object.values(SEALED).flatMap((table) => Object.values(table));

const BY_AAD = new Map(SEALED_COLUMNS.map((c) => [c.aad, c]));

/** How a sealed JSON value's stored text begins. */
const SEALED_TEXT = '{"$enc":"';

/** The stored texts of empty values, which are written as they are (see `isEmpty`). */
export const EMPTY_TEXTS = ["{}", "[]", "null"] as const;

/**
 * `{}`, `[]` and null hold nothing to hide (a sealed one's length would say as much), and most threads'
 * config, interrupts and cleared error are one: written as they are, reading them costs no decryption.
 */
export function isEmpty(value: unknown): boolean {
  return value === null || (typeof value === "object" && Object.keys(value as object).length === 0);
}

/** The value written for `column`, sealed as its mode says (`value`: wire JSON). */
function seal(cipher: FieldCipher, column: SealedColumn, value: unknown): unknown {
  switch (column.mode) {
    case "json":
    case "text":
      return cipher.sealJson(value, column.aad);
    case "keys":
      return cipher.sealKeys(value, column.aad);
    case "message": {
      const internal = value as Record<string, unknown> | null;
      if (internal === null || typeof internal !== "object" || internal.message === undefined) return value;
      return { ...internal, message: cipher.sealJson(internal.message, column.aad) };
    }
  }
}

/** A parsed stored value of `column`, opened. */
export function openValue(cipher: FieldCipher, column: SealedColumn, value: unknown): unknown {
  switch (column.mode) {
    case "json":
    case "text":
      return cipher.openJson(value, column.aad);
    case "keys":
      return cipher.openKeys(value, column.aad);
    case "message": {
      const internal = value as Record<string, unknown> | null;
      if (internal === null || typeof internal !== "object" || !isSealedJson(internal.message)) return value;
      return { ...internal, message: cipher.openJson(internal.message, column.aad) };
    }
  }
}

/**
 * A stored text opened, for the SQL functions (sql-functions.ts) that filter on a column: the column is named by
 * its aad, a literal in the query. Metadata without a sealed value is only parsed (no walk).
 */
export function openStored(cipher: FieldCipher, aad: string, text: string | null): unknown {
  const column = BY_AAD.get(aad);
  if (!column) throw new Error(`no sealed column ${aad}`);
  const parsed = parseJson(text, null);
  if (column.mode === "keys" && (text === null || !text.includes('"$enc"'))) return parsed;
  return openValue(cipher, column, parsed);
}

/**
 * One table's JSON columns as written and read: core's wire JSON, sealed where `SEALED` says. The row
 * mapping (`fromRow`) and every writer of the table go through it, so sealing happens in one place.
 */
export class TableCodec<T extends SealedTable = SealedTable> implements RowCodec {
  private readonly columns: Readonly<Record<string, SealedColumn>>;

  constructor(
    readonly cipher: FieldCipher,
    table: T,
  ) {
    this.columns = SEALED[table];
  }

  /** `value` as the column's stored text (throws WireSerializationError before anything is written). */
  text(column: string, value: unknown): string {
    const wire = toWireJson(value);
    const sealed = this.columns[column];
    return JSON.stringify(sealed && this.cipher.sealing && !isEmpty(wire) ? seal(this.cipher, sealed, wire) : wire);
  }

  /** A `text` column's stored text: the text itself while no key is set. */
  plainText(column: string, value: string | null): string | null {
    return value === null || !this.cipher.sealing ? value : this.text(column, value);
  }

  /** A stored text as its value (NULL reads as a copy of `fallback`), opened. */
  value<V>(column: string, text: string | null | undefined, fallback: V): V {
    const sealed = this.columns[column];
    if (!sealed) return parseJson(text, fallback);
    if (sealed.mode === "text") {
      if (text === null || text === undefined || !text.startsWith(SEALED_TEXT)) return (text ?? fallback) as V;
      return this.cipher.openJson(JSON.parse(text), sealed.aad) as V;
    }
    if (sealed.mode === "keys" && text != null && !text.includes('"$enc"')) return parseJson(text, fallback);
    return openValue(this.cipher, sealed, parseJson(text, fallback)) as V;
  }
}

/** The codecs of every table, for one storage's cipher. */
export function tableCodecs(cipher: FieldCipher = NO_ENCRYPTION): { [T in SealedTable]: TableCodec<T> } {
  return Object.fromEntries(Object.keys(SEALED).map((table) => [table, new TableCodec(cipher, table as SealedTable)])) as {
    [T in SealedTable]: TableCodec<T>;
  };
}

export type TableCodecs = ReturnType<typeof tableCodecs>;
