import type { FieldCipher } from "@agent-server/core";
import type pg from "pg";
import { encodeString, query, toDbJson, transaction, type Tables } from "./db.js";
import { aadOf, SEALED_COLUMNS, type Seal, type Sealer, type SealedTable } from "./sealing.js";

/** What `sealedSerde` appends to a sealed checkpoint blob's type (core's sealed-serde.ts). */
const SEALED_TYPE = "+aes";

/** Each sealed table's primary key (column, type), in its index order: batches walk it as a keyset. */
const PRIMARY_KEYS: Record<SealedTable, ReadonlyArray<readonly [string, string]>> = {
  threads: [["thread_id", "text"]],
  runs: [["run_id", "text"]],
  run_results: [["run_id", "text"]],
  run_events: [
    ["run_id", "text"],
    ["id", "bigint"],
  ],
  store_items: [
    ["ns_path", "text"],
    ["key", "text"],
  ],
  crons: [["cron_id", "text"]],
  deliveries: [["delivery_id", "text"]],
  push_configs: [
    ["run_id", "text"],
    ["config_id", "text"],
  ],
  assistants: [["assistant_id", "text"]],
  assistant_versions: [
    ["assistant_id", "text"],
    ["version", "integer"],
  ],
  checkpoints: [
    ["thread_id", "text"],
    ["checkpoint_ns", "text"],
    ["checkpoint_id", "text"],
  ],
  checkpoint_blobs: [
    ["thread_id", "text"],
    ["checkpoint_ns", "text"],
    ["channel", "text"],
    ["version", "text"],
  ],
  checkpoint_writes: [
    ["thread_id", "text"],
    ["checkpoint_ns", "text"],
    ["checkpoint_id", "text"],
    ["task_id", "text"],
    ["idx", "integer"],
  ],
};

/** One sealed column as rotation walks it. */
export interface ResealTarget {
  label: string;
  /** Rows whose value is not sealed with the primary key (plaintext included): `$1…` are `params`. */
  todo: string;
  params: unknown[];
  /** Up to `limit` of them after `after` (a primary key), locked, resealed and written in one transaction. */
  batch(after: unknown[] | null, limit: number): Promise<{ selected: number; changed: number; last: unknown[] | null }>;
}

const quote = (column: string) => `"${column}"`;

/**
 * Every sealed column with the predicate that finds what rotation still has to do, for the cipher's
 * primary key: a JSON value not `{"$enc": "v1.<key id>.…"}` (`null`, `{}`, `[]` are never sealed), a
 * metadata object holding a sealed value of another key or a LANGGRAPH_AES_JSON_KEYS value not sealed, a
 * text not starting with the sealed JSON's prefix, a checkpoint blob whose type lacks `+aes` or whose
 * bytes do not start with `AGS1 | id length | id`.
 */
export function resealTargets(pool: pg.Pool, t: Tables, seal: Sealer): ResealTarget[] {
  const cipher = seal.cipher;
  const jsonPrefix = `v1.${cipher.keyId}.`;
  const targets: ResealTarget[] = [];
  for (const [table, columns] of Object.entries(SEALED_COLUMNS) as [SealedTable, Record<string, Seal>][]) {
    const name = `${quote(t.schema)}.${quote(table)}`;
    const pk = PRIMARY_KEYS[table];
    for (const [column, how] of Object.entries(columns)) {
      const aad = aadOf(how, table, column);
      const c = `t.${quote(column)}`;
      // run_results: the one value of both columns (migration 0009), read as the text it was written as.
      const results = table === "run_results";
      let todo: string;
      let params: unknown[];
      switch (how.kind) {
        case "json":
          [todo, params] = [staleJson(c), [jsonPrefix]];
          break;
        case "fields":
          [todo, params] = [`(${how.fields.map((f) => staleJson(`(${c} -> '${f}')`)).join(" OR ")})`, [jsonPrefix]];
          break;
        case "keys":
          [todo, params] = [`jsonb_path_exists(${c}, $2::jsonpath, jsonb_build_object('p', $1::text))`, [jsonPrefix, keysPath(cipher)]];
          break;
        case "text":
          [todo, params] = [`(${c} IS NOT NULL AND NOT starts_with(${c}, $1))`, [`{"$enc":"${jsonPrefix}`]];
          break;
        case "bytes":
          [todo, params] = [
            `(t.blob IS NOT NULL AND NOT (right(t.type, ${SEALED_TYPE.length}) = '${SEALED_TYPE}' AND substr(t.blob, 1, length($1::bytea)) = $1::bytea))`,
            [bytesPrefix(cipher)],
          ];
          break;
      }
      const read = results ? `COALESCE(t.result_text, t.result::json)` : how.kind === "bytes" ? `t.blob, t.type` : c;
      const keys = pk.map(([k]) => `t.${quote(k)}`).join(", ");
      const select = (after: boolean) => {
        const n = params.length;
        const cursor = after ? ` AND (${keys}) > (${pk.map(([, type], i) => `$${n + 1 + i}::${type}`).join(", ")})` : "";
        return `SELECT ${keys}, ${read}${how.kind === "bytes" ? "" : " AS v"} FROM ${name} t WHERE ${todo}${cursor}
                ORDER BY ${keys} LIMIT $${n + (after ? pk.length : 0) + 1} FOR NO KEY UPDATE SKIP LOCKED`;
      };
      const arrays = pk.map(([, type], i) => `$${i + 1}::${type}[]`);
      const value = `$${pk.length + 1}::${how.kind === "bytes" ? "bytea" : "text"}[]`;
      const set =
        how.kind === "bytes"
          ? `blob = u.v, type = u.type`
          : results
            ? `result = u.v::json::jsonb, result_text = u.v::json`
            : `${quote(column)} = u.v${how.kind === "text" ? "" : "::jsonb"}`;
      const update = `UPDATE ${name} t SET ${set}
        FROM unnest(${[...arrays, value, ...(how.kind === "bytes" ? [`$${pk.length + 2}::text[]`] : [])].join(", ")})
          AS u(${[...pk.map((_, i) => `k${i}`), "v", ...(how.kind === "bytes" ? ["type"] : [])].join(", ")})
        WHERE (${keys}) = (${pk.map((_, i) => `u.k${i}`).join(", ")})`;
      targets.push({
        label: `${table}.${column}`,
        todo: `SELECT EXISTS (SELECT 1 FROM ${name} t WHERE ${todo}) AS left`,
        params,
        batch: (after, limit) =>
          transaction(pool, async (client) => {
            const rows = await query(client, select(after !== null), [...params, ...(after ?? []), limit]);
            const changed: Array<{ keys: unknown[]; value: unknown; type?: string }> = [];
            for (const row of rows) {
              const keysOf = pk.map(([k]) => row[k]);
              if (how.kind === "bytes") {
                const type = String(row.type);
                const sealed = type.endsWith(SEALED_TYPE);
                const bytes = sealed ? cipher.openBytes(row.blob, aad) : (row.blob as Uint8Array);
                const base = sealed ? type.slice(0, -SEALED_TYPE.length) : type;
                changed.push({ keys: keysOf, value: Buffer.from(cipher.sealBytes(bytes, aad)), type: base + SEALED_TYPE });
                continue;
              }
              const next = seal.reseal(how, aad, row.v);
              const text = how.kind === "text" ? (next as string) : toDbJson(next);
              if (text !== (how.kind === "text" ? row.v : toDbJson(row.v))) changed.push({ keys: keysOf, value: text });
            }
            if (changed.length > 0) {
              const columnsOf = pk.map((_, i) => changed.map((c) => c.keys[i]));
              const types = how.kind === "bytes" ? [changed.map((c) => c.type)] : [];
              await query(client, update, [...columnsOf, changed.map((c) => c.value), ...types]);
            }
            const last = rows.at(-1);
            return { selected: rows.length, changed: changed.length, last: last ? pk.map(([k]) => last[k]) : null };
          }),
      });
    }
  }
  return targets;
}

/** A JSON expression that holds something and is not sealed with the primary key (`$1`: `v1.<id>.`). */
function staleJson(e: string): string {
  return `(${e} IS NOT NULL AND ${e} NOT IN ('null'::jsonb, '{}'::jsonb, '[]'::jsonb) AND NOT COALESCE(starts_with(${e} ->> '$enc', $1), false))`;
}

/**
 * A jsonpath finding, at any depth of a metadata object, a sealed value of another key, or a
 * LANGGRAPH_AES_JSON_KEYS member (not null) that is not sealed with the primary key (`$p`). `.type()`
 * does not unwrap arrays in lax mode, so an array under such a key counts as one value, as sealKeys seals it.
 */
function keysPath(cipher: FieldCipher): string {
  const stale = `(@."$enc".type() == "string" && !(@."$enc" starts with $p))`;
  const plain = [...cipher.jsonKeys].map((key) => {
    const member = `@.${JSON.stringify(encodeString(key))}`;
    return `(${member}.type() != "null" && !(${member}."$enc".type() == "string" && ${member}."$enc" starts with $p))`;
  });
  return `$.** ? (${[stale, ...plain].join(" || ")})`;
}

/** The bytes every blob sealed with the primary key starts with (core's field-cipher.ts `sealBytes`). */
function bytesPrefix(cipher: FieldCipher): Buffer {
  const id = Buffer.from(cipher.keyId!, "latin1");
  return Buffer.concat([Buffer.from("AGS1", "latin1"), Buffer.from([id.length]), id]);
}
