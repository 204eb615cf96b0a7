import { isSealedBytes, isSealedJson, nowIso, type EncryptionRepo, type FieldCipher, type RecordedKey } from "@agent-server/core";
import { baseType, SEALED_TYPE_SUFFIX } from "./checkpoint-reads.js";
import { Statements, type Db } from "./db.js";
import { EMPTY_TEXTS, isEmpty, SEALED_BLOBS, SEALED_COLUMNS, type SealMode } from "./sealing.js";

/** One column `resealBatch` walks: a JSON / text column of `SEALED`, or a checkpoint blob (with its type column). */
interface Target {
  table: string;
  column: string;
  aad: string;
  mode: SealMode | "blob";
}

/** Table by table, column by column; checkpoints last (the largest values). */
const TARGETS: readonly Target[] = [...SEALED_COLUMNS, ...SEALED_BLOBS.map((blob) => ({ ...blob, mode: "blob" as const }))];

/**
 * The rows of a target holding a value not sealed with the primary key (plaintext included), after
 * rowid @after. It looks at the stored text only (no decryption): a JSON value sealed with the primary
 * key starts with @prefix (`{"$enc":"v1.<id>.`) (an empty one is not sealed: sealing.ts `isEmpty`), a
 * checkpoint blob with @blob (`AGS1 | id length | id`)
 * and its type ends with the seal mark; metadata (`keys`) holds a sealed value of another key, or a
 * plaintext value under a key of LANGGRAPH_AES_JSON_KEYS (@keys).
 */
function pendingSql({ table, column: c, mode }: Target): string {
  const pending = {
    json: `substr(${c}, 1, length(@prefix)) IS NOT @prefix AND ${c} NOT IN (${EMPTY_TEXTS.map((t) => `'${t}'`).join(", ")})`,
    text: `substr(${c}, 1, length(@prefix)) IS NOT @prefix`,
    // Guarded by json_valid: SQLite does not promise to skip json_type / json_tree of a malformed text.
    message: `CASE WHEN json_valid(${c}) THEN json_type(${c}, '$.message') IS NOT NULL
      AND (json_type(${c}, '$.message."$enc"') IS NOT 'text' OR substr(json_extract(${c}, '$.message."$enc"'), 1, length(@inner)) IS NOT @inner)
      ELSE 0 END`,
    keys: `(@any_keys OR instr(${c}, '"$enc"') > 0) AND EXISTS (SELECT 1 FROM json_tree(CASE WHEN json_valid(${c}) THEN ${c} ELSE '{}' END) t WHERE
      (t.key = '$enc' AND t.type = 'text' AND substr(t.atom, 1, length(@inner)) IS NOT @inner)
      OR (t.key IN (SELECT value FROM json_each(@keys)) AND t.type IS NOT 'null'
          AND NOT (t.type = 'object' AND json_type(t.value, '$."$enc"') = 'text')))`,
    blob: `(type IS NULL OR type NOT LIKE '%${SEALED_TYPE_SUFFIX}' OR substr(${c}, 1, length(@blob)) IS NOT @blob)`,
  }[mode];
  return `SELECT rowid FROM ${table} WHERE rowid > @after AND ${c} IS NOT NULL AND ${pending} ORDER BY rowid LIMIT @limit`;
}

const PARAMS: Record<Target["mode"], readonly string[]> = {
  json: ["prefix"],
  text: ["prefix"],
  message: ["inner"],
  keys: ["inner", "keys", "any_keys"],
  blob: ["blob"],
};

/**
 * `Storage.encryption` on SQLite: the recorded keys (table encryption_keys, migration 14) and key
 * rotation. `resealBatch` finds values in a read (no write lock; WAL readers do not block writers),
 * then re-reads and re-seals them in one IMMEDIATE transaction holding the lock for O(limit) work.
 * A value a writer changed in between is re-read there: sealed with the primary key by its writer
 * (left as it is), or re-sealed now.
 *
 * Where to look next is a hint kept in memory (target, rowid): a pass walks every target once, so a
 * rotation reads each row's stored text O(1) times — one pass that re-seals, one that finds nothing
 * (O(rows + bytes of the sealed columns) in all, plus O(values re-sealed) AES work), not once per batch.
 * Answering 0 takes a whole pass that changed nothing, so a row written behind the hint (by a server
 * still sealing with an older key) is found by the next pass. A new process starts a pass from the start.
 */
export class SqliteEncryptionRepo implements EncryptionRepo {
  private readonly s: Statements;
  private target = 0;
  private after = 0;
  /** Values changed since the current pass started. */
  private passChanged = 0;

  constructor(
    private readonly db: Db,
    private readonly cipher: FieldCipher,
  ) {
    this.s = new Statements(db);
  }

  async keys(): Promise<RecordedKey[]> {
    const rows = this.s.get("SELECT key_id, check_value FROM encryption_keys ORDER BY created_at, rowid").all() as {
      key_id: string;
      check_value: string;
    }[];
    return rows.map((row) => ({ keyId: row.key_id, check: JSON.parse(row.check_value) }));
  }

  async recordKey(key: RecordedKey): Promise<void> {
    this.s
      .get("INSERT OR IGNORE INTO encryption_keys (key_id, check_value, created_at) VALUES (?, ?, ?)")
      .run(key.keyId, JSON.stringify(key.check), nowIso());
  }

  async forgetKey(keyId: string): Promise<void> {
    this.s.get("DELETE FROM encryption_keys WHERE key_id = ?").run(keyId);
  }

  /** Nothing to do without a primary key: this re-seals, it never unseals. */
  async resealBatch(limit: number): Promise<number> {
    const n = Math.floor(limit);
    if (!this.cipher.sealing || !(n > 0)) return 0;
    for (;;) {
      const picked = this.pick(n);
      if (picked === null) return 0;
      const changed = this.db.transaction(() => this.reseal(picked)).immediate();
      this.passChanged += changed;
      // Picked values that needed nothing (re-sealed by their writer meanwhile): pick again.
      if (changed > 0) return changed;
    }
  }

  /** Up to `limit` (target, rowid) still to re-seal; null once a whole pass changed nothing. */
  private pick(limit: number): Array<{ target: Target; rowid: number }> | null {
    const picked: Array<{ target: Target; rowid: number }> = [];
    while (picked.length < limit) {
      if (this.target === TARGETS.length) {
        if (picked.length > 0) break;
        const clean = this.passChanged === 0;
        [this.target, this.after, this.passChanged] = [0, 0, 0];
        if (clean) return null;
        continue;
      }
      const target = TARGETS[this.target]!;
      const want = limit - picked.length;
      const rowids = this.s
        .get(pendingSql(target))
        .pluck()
        .all({ ...this.params(target), after: this.after, limit: want }) as number[];
      for (const rowid of rowids) picked.push({ target, rowid });
      if (rowids.length > 0) this.after = rowids[rowids.length - 1]!;
      if (rowids.length < want) [this.target, this.after] = [this.target + 1, 0];
    }
    return picked;
  }

  private params(target: Target): Record<string, unknown> {
    const id = this.cipher.keyId!;
    const all: Record<string, unknown> = {
      prefix: `{"$enc":"v1.${id}.`,
      inner: `v1.${id}.`,
      blob: Buffer.concat([Buffer.from("AGS1", "latin1"), Buffer.from([Buffer.byteLength(id, "latin1")]), Buffer.from(id, "latin1")]),
      keys: JSON.stringify([...this.cipher.jsonKeys]),
      any_keys: this.cipher.jsonKeys.size > 0 ? 1 : 0,
    };
    return Object.fromEntries(PARAMS[target.mode].map((name) => [name, all[name]]));
  }

  /** Inside the transaction: each picked value as it is now, re-sealed when it still needs it. */
  private reseal(picked: Array<{ target: Target; rowid: number }>): number {
    let changed = 0;
    for (const { target, rowid } of picked) {
      const { table, column: c } = target;
      if (target.mode === "blob") {
        const row = this.s.get(`SELECT type, ${c} AS value FROM ${table} WHERE rowid = ?`).get(rowid) as
          { type: string | null; value: Uint8Array | string | null } | undefined;
        const next = row?.value != null ? this.resealBlob(target.aad, row.type, row.value) : null;
        if (!next) continue;
        this.s.get(`UPDATE ${table} SET type = ?, ${c} = ? WHERE rowid = ?`).run(next.type, next.value, rowid);
      } else {
        const text = this.s.get(`SELECT ${c} FROM ${table} WHERE rowid = ?`).pluck().get(rowid) as string | null | undefined;
        const next = text != null ? this.resealText(target, text) : text;
        if (next == null || next === text) continue;
        this.s.get(`UPDATE ${table} SET ${c} = ? WHERE rowid = ?`).run(next, rowid);
      }
      changed++;
    }
    return changed;
  }

  /** The stored text re-sealed, or the same text when every sealed value in it is the primary key's. */
  private resealText(target: Target, text: string): string {
    const { cipher } = this;
    const { aad } = target;
    const fresh = (sealed: unknown) => !isSealedJson(sealed) || sealed.$enc.split(".")[1] !== cipher.keyId;
    const reseal = (value: unknown) => cipher.sealJson(cipher.openJson(value, aad), aad);
    switch (target.mode) {
      case "json": {
        const value: unknown = JSON.parse(text);
        if (!fresh(value)) return text;
        const plain = cipher.openJson(value, aad);
        return JSON.stringify(isEmpty(plain) ? plain : cipher.sealJson(plain, aad));
      }
      case "text": {
        const value: unknown = text.startsWith('{"$enc":"') ? JSON.parse(text) : text;
        return fresh(value) ? JSON.stringify(reseal(value)) : text;
      }
      case "message": {
        const internal = JSON.parse(text) as Record<string, unknown> | null;
        if (internal === null || typeof internal !== "object" || internal.message === undefined || !fresh(internal.message)) return text;
        return JSON.stringify({ ...internal, message: reseal(internal.message) });
      }
      default: {
        // Metadata: sealed values of other keys re-sealed, plaintext values of LANGGRAPH_AES_JSON_KEYS sealed.
        let changed = false;
        const walk = (value: unknown): unknown => {
          if (isSealedJson(value)) return fresh(value) ? ((changed = true), reseal(value)) : value;
          if (Array.isArray(value)) return value.map(walk);
          if (value === null || typeof value !== "object") return value;
          return Object.fromEntries(
            Object.entries(value).map(([key, inner]) =>
              cipher.jsonKeys.has(key) && inner != null && !isSealedJson(inner)
                ? [key, ((changed = true), reseal(inner))]
                : [key, walk(inner)],
            ),
          );
        };
        const next = walk(JSON.parse(text));
        return changed ? JSON.stringify(next) : text;
      }
    }
  }

  /** A checkpoint blob sealed with the primary key (type marked), or null when it is already. */
  private resealBlob(aad: string, type: string | null, value: Uint8Array | string): { type: string; value: Uint8Array } | null {
    const stored = type ?? "json";
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
    const sealed = stored.endsWith(SEALED_TYPE_SUFFIX) && isSealedBytes(bytes);
    if (sealed && blobKeyId(bytes) === this.cipher.keyId) return null;
    const plain = sealed ? this.cipher.openBytes(bytes, aad) : bytes;
    return { type: `${baseType(stored)}${SEALED_TYPE_SUFFIX}`, value: this.cipher.sealBytes(plain, aad) };
  }
}

/** The key id a sealed blob names (`AGS1 | id length | id | ...`, core's field-cipher). */
function blobKeyId(bytes: Uint8Array): string {
  const length = bytes[4]!;
  return Buffer.from(bytes.buffer, bytes.byteOffset + 5, length).toString("latin1");
}
