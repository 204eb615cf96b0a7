import { isPlainObject, isSealedJson, NO_ENCRYPTION, toWireJson, type FieldCipher } from "@agent-server/core";
import { toDbJson } from "./db.js";

/**
 * How a column holds what users send once a key is set (encryption at rest, libs/core/src/encryption):
 * - `json`: the whole value becomes `{"$enc": …}` (still valid json/jsonb);
 * - `fields`: only these members of an object are sealed, so SQL keeps reading the others (the columns
 *   generated from runs.internal, `internal || …` updates);
 * - `keys`: metadata, of which only LANGGRAPH_AES_JSON_KEYS are sealed: searches, auth filters and
 *   `metadata || patch` merges go on reading everything else;
 * - `text`: a text column holding the sealed value's JSON text;
 * - `bytes`: checkpoint blobs, sealed by the saver's serializer (`sealedSerde`, type suffix `+aes`);
 *   listed here so that rotation finds them.
 * What is not listed (ids, timestamps, statuses, names, URLs, checkpoints' channel versions, vectors)
 * stays plaintext: the driver looks rows up, joins and sorts by it.
 */
export type Seal = (
  { kind: "json" } | { kind: "fields"; fields: readonly string[] } | { kind: "keys" } | { kind: "text" } | { kind: "bytes" }
) & {
  /** The additional data, when not `<table>.<column>`: for values SQL copies between two tables. */
  aad?: string;
};

const json: Seal = { kind: "json" };
const keys: Seal = { kind: "keys" };

/**
 * Every sealed column, by table; a value's additional data (AAD) is `<table>.<column>` (`.<field>` for
 * `fields`), so a ciphertext copied into another column does not open. run_results' `result` stands for
 * both of its columns (result, result_text), written from one parameter (migration 0009). An assistant's
 * metadata moves between assistants and assistant_versions in SQL (versions, `setLatest`): one AAD.
 */
export const SEALED_COLUMNS = {
  threads: { values: json, interrupts: json, error: json, config: json, metadata: keys },
  runs: { kwargs: json, internal: { kind: "fields", fields: ["message"] }, error: json, metadata: keys },
  run_results: { result: json },
  run_events: { data: json },
  store_items: { value: json },
  crons: { payload: json, metadata: keys },
  deliveries: { payload: json, headers: json },
  push_configs: { token: { kind: "text" }, authentication: json },
  assistants: { metadata: keys },
  assistant_versions: { metadata: { kind: "keys", aad: "assistants.metadata" } },
  checkpoints: { metadata: keys },
  checkpoint_blobs: { blob: { kind: "bytes" } },
  checkpoint_writes: { blob: { kind: "bytes" } },
} as const satisfies Record<string, Record<string, Seal>>;

export type SealedTable = keyof typeof SEALED_COLUMNS;
export type SealedColumn<T extends SealedTable> = keyof (typeof SEALED_COLUMNS)[T] & string;

/** The text a sealed `text` column starts with. */
const SEALED_TEXT = '{"$enc":';

/** Values that say nothing are left as they are: sealing `{}` hides nothing and costs a ciphertext per row. */
export function carriesNothing(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/**
 * Sealing and opening by the column map: repositories call it where they write a value (`json`, `text`)
 * and where they map a row (`row`, `open`), never the cipher directly. Without a key every write is what
 * it was before (`toDbJson`), and a read still opens nothing it cannot: a sealed value read without its
 * key throws EncryptionKeyError naming the key.
 */
export class Sealer {
  constructor(readonly cipher: FieldCipher = NO_ENCRYPTION) {}

  get sealing(): boolean {
    return this.cipher.sealing;
  }

  /** The json/jsonb parameter text of `value` for `table.column`. */
  json<T extends SealedTable>(table: T, column: SealedColumn<T>, value: unknown): string {
    return toDbJson(this.value(table, column, value));
  }

  /** `value` as `table.column` stores it (sealed or not), still as a JSON value. */
  value<T extends SealedTable>(table: T, column: SealedColumn<T>, value: unknown): unknown {
    const how = seal(table, column);
    return this.seal(how, aadOf(how, table, column), value);
  }

  /** A `text` column's parameter: the sealed value's JSON text, or the text itself without a key. */
  text<T extends SealedTable>(table: T, column: SealedColumn<T>, value: string | null | undefined): string | null {
    return value === null || value === undefined ? null : (this.value(table, column, value) as string);
  }

  /** A stored value of `table.column` opened (plaintext passes through). */
  open<T extends SealedTable>(table: T, column: SealedColumn<T>, stored: unknown): unknown {
    const how = seal(table, column);
    return this.unseal(how, aadOf(how, table, column), stored);
  }

  /** Opens, in place, every sealed column of `table` that `row` has. */
  row<T extends SealedTable, R>(table: T, row: R): R {
    if (row === undefined || row === null) return row;
    const record = row as Record<string, unknown>;
    for (const [column, how] of Object.entries(SEALED_COLUMNS[table]) as [string, Seal][]) {
      if (column in record) record[column] = this.unseal(how, aadOf(how, table, column), record[column]);
    }
    return row;
  }

  rows<T extends SealedTable, R>(table: T, rows: R[]): R[] {
    for (const row of rows) this.row(table, row);
    return rows;
  }

  /** Whether a metadata filter names a LANGGRAPH_AES_JSON_KEYS key (at any depth): SQL cannot match those. */
  touchesSealedKeys(filter: unknown): boolean {
    const sealed = this.cipher.jsonKeys;
    if (sealed.size === 0) return false;
    const walk = (v: unknown): boolean =>
      Array.isArray(v) ? v.some(walk) : isPlainObject(v) && Object.entries(v).some(([k, inner]) => sealed.has(k) || walk(inner));
    return walk(filter);
  }

  /** What is stored, opened with any key given and sealed again with the primary one (rotation). */
  reseal(how: Seal, aad: string, stored: unknown): unknown {
    return this.seal(how, aad, this.unseal(how, aad, stored));
  }

  private seal(how: Seal, aad: string, value: unknown): unknown {
    switch (how.kind) {
      case "json":
        return !this.sealing || carriesNothing(value) ? value : this.cipher.sealJson(toWireJson(value), aad);
      case "fields": {
        if (!this.sealing || !isPlainObject(value) || !how.fields.some((f) => !carriesNothing(value[f]))) return value;
        const out: Record<string, unknown> = { ...value };
        for (const field of how.fields) {
          if (!carriesNothing(out[field])) out[field] = this.cipher.sealJson(toWireJson(out[field]), `${aad}.${field}`);
        }
        return out;
      }
      case "keys":
        return this.cipher.jsonKeys.size === 0 || carriesNothing(value) ? value : this.cipher.sealKeys(toWireJson(value), aad);
      case "text":
        return typeof value === "string" && this.sealing ? JSON.stringify(this.cipher.sealJson(value, aad)) : value;
      case "bytes":
        throw new Error(`${aad} is sealed by the checkpointer's serializer`);
    }
  }

  private unseal(how: Seal, aad: string, stored: unknown): unknown {
    switch (how.kind) {
      case "json":
        return this.cipher.openJson(stored, aad);
      case "fields": {
        if (!isPlainObject(stored) || !how.fields.some((f) => isSealedJson(stored[f]))) return stored;
        const out: Record<string, unknown> = { ...stored };
        for (const field of how.fields) out[field] = this.cipher.openJson(out[field], `${aad}.${field}`);
        return out;
      }
      case "keys":
        return this.cipher.openKeys(stored, aad);
      case "text": {
        if (typeof stored !== "string" || !stored.startsWith(SEALED_TEXT)) return stored;
        const parsed: unknown = JSON.parse(stored);
        return isSealedJson(parsed) ? this.cipher.openJson(parsed, aad) : stored;
      }
      case "bytes":
        throw new Error(`${aad} is opened by the checkpointer's serializer`);
    }
  }
}

function seal<T extends SealedTable>(table: T, column: SealedColumn<T>): Seal {
  return (SEALED_COLUMNS[table] as Record<string, Seal>)[column]!;
}

export function aadOf(how: Seal, table: string, column: string): string {
  return how.aad ?? `${table}.${column}`;
}
