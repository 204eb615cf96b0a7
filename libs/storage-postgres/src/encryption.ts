import { InvalidInputError, type EncryptionRepo, type RecordedKey } from "@agent-server/core";
import type pg from "pg";
import { query, toDbJson, type Tables } from "./db.js";
import { resealTargets, type ResealTarget } from "./reseal.js";
import type { Sealer } from "./sealing.js";

/** Passes over every sealed column that found rows to do but could take none (locked) before giving up. */
const MAX_IDLE_PASSES = 40;

/**
 * The keys that sealed data in this schema (table encryption_keys, migration 0011), and rotation.
 *
 * `resealBatch(limit)` walks the sealed columns (reseal.ts) one after another, each in primary key order
 * from where the previous call stopped (a cursor kept in this process), and per column takes up to what
 * is left of `limit` rows still not sealed with the primary key, `FOR NO KEY UPDATE SKIP LOCKED`, opens
 * and seals them again and writes them back in the same transaction: a serving process's write either
 * waits for that short transaction or happened before the lock, never overwritten with stale data; rows
 * it holds are skipped and found again later. A call answers 0 only after an unlocked check of every
 * column finds nothing left, so a rotation can trust it. Resumable by construction: what is left is what
 * the predicates select, whichever process or call got there first.
 *
 * Cost: a batch is O(limit) decryptions and encryptions in 4 statements per column it touches (BEGIN,
 * SELECT … LIMIT, one UPDATE from arrays, COMMIT); the keyset read visits the rows between the cursor and
 * the last one taken, so a whole rotation reads each sealed row O(1) times, plus one final scan of every
 * sealed column (O(rows), one statement per column) to confirm none is left.
 */
export class PostgresEncryptionRepo implements EncryptionRepo {
  private targets: ResealTarget[] | undefined;
  private at: { target: number; after: unknown[] | null } = { target: 0, after: null };

  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
  ) {}

  async keys(): Promise<RecordedKey[]> {
    const rows = await query<{ key_id: string; check_value: unknown }>(
      this.pool,
      `SELECT key_id, check_value FROM ${this.t.encryptionKeys} ORDER BY created_at, key_id`,
    );
    return rows.map((row) => ({ keyId: row.key_id, check: row.check_value }));
  }

  async recordKey(key: RecordedKey): Promise<void> {
    await query(
      this.pool,
      `INSERT INTO ${this.t.encryptionKeys} (key_id, check_value) VALUES ($1, $2::jsonb) ON CONFLICT (key_id) DO NOTHING`,
      [key.keyId, toDbJson(key.check)],
    );
  }

  async forgetKey(keyId: string): Promise<void> {
    await query(this.pool, `DELETE FROM ${this.t.encryptionKeys} WHERE key_id = $1`, [keyId]);
  }

  async resealBatch(limit: number): Promise<number> {
    if (!this.seal.sealing) throw new InvalidInputError("re-sealing needs the key to seal with (LANGGRAPH_AES_KEY)");
    const want = Math.max(0, Math.floor(limit));
    if (want === 0) return 0;
    const targets = (this.targets ??= resealTargets(this.pool, this.t, this.seal));
    let changed = 0;
    for (let idle = 0; ;) {
      if (this.at.target >= targets.length) {
        this.at = { target: 0, after: null };
        if (changed > 0) return changed;
        const left = await this.firstLeft(targets);
        if (left < 0) return 0;
        // Rows are left that no batch could take: held by other transactions, or not values this server sealed.
        if (++idle > MAX_IDLE_PASSES) {
          throw new Error(
            `values of ${targets[left]!.label} stay unsealed with key ${this.seal.cipher.keyId}: locked by a long transaction?`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25 * idle));
        this.at = { target: left, after: null };
        continue;
      }
      const asked = want - changed;
      const batch = await targets[this.at.target]!.batch(this.at.after, asked);
      changed += batch.changed;
      this.at.after = batch.last ?? this.at.after;
      if (batch.selected < asked) this.at = { target: this.at.target + 1, after: null };
      if (changed >= want) return changed;
    }
  }

  /** The first column with a value still to re-seal (read without locks, so held rows count): -1 when none. */
  private async firstLeft(targets: ResealTarget[]): Promise<number> {
    for (const [i, target] of targets.entries()) {
      const [row] = await query<{ left: boolean }>(this.pool, target.todo, target.params);
      if (row?.left) return i;
    }
    return -1;
  }
}
