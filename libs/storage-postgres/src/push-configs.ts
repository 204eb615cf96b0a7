import { nowIso, type NewPushConfig, type PushConfig, type PushConfigRepo } from "@agent-server/core";
import type pg from "pg";
import { FOREIGN_KEY_VIOLATION, pgCode, query, type Tables } from "./db.js";
import type { Sealer } from "./sealing.js";

const COLUMNS = "run_id, config_id, url, token, authentication, created_at";

/**
 * A2A push notification configs (table push_configs, migration 0003). Rows reference their run with
 * ON DELETE CASCADE, so run/thread deletes and truncate take them along. Thread copy does not
 * copy them: they were registered for the original task's notifications.
 */
export class PostgresPushConfigRepo implements PushConfigRepo {
  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
  ) {}

  /**
   * One statement: nothing is written for an unknown run; a replacement keeps created_at. With
   * `options.run`, that run's `push_registered` is set by the same statement (migration 0005 says why).
   */
  async put(input: NewPushConfig, options?: { run?: string }): Promise<PushConfig | null> {
    // Both before any query: a value that cannot be serialized writes nothing.
    const authentication = input.authentication == null ? null : this.seal.json("push_configs", "authentication", input.authentication);
    const token = this.seal.text("push_configs", "token", input.token);
    const mark =
      options?.run !== undefined
        ? `WITH marked AS (UPDATE ${this.t.runs} SET push_registered = true WHERE run_id = $7 AND EXISTS (SELECT 1 FROM ${this.t.runs} WHERE run_id = $1))\n`
        : "";
    try {
      const [row] = await query<PushConfig>(
        this.pool,
        `${mark}INSERT INTO ${this.t.pushConfigs} (${COLUMNS})
         SELECT $1, $2, $3, $4, $5::jsonb, $6 WHERE EXISTS (SELECT 1 FROM ${this.t.runs} WHERE run_id = $1)
         ON CONFLICT (run_id, config_id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token, authentication = EXCLUDED.authentication
         RETURNING ${COLUMNS}`,
        [input.run_id, input.config_id, input.url, token, authentication, nowIso(), ...(options?.run !== undefined ? [options.run] : [])],
      );
      return row ? this.seal.row("push_configs", row) : null;
    } catch (error) {
      // The run was deleted between the EXISTS check and the foreign-key check: as for an unknown run.
      if (pgCode(error) === FOREIGN_KEY_VIOLATION) return null;
      throw error;
    }
  }

  async get(runId: string, configId: string): Promise<PushConfig | null> {
    const [row] = await query<PushConfig>(this.pool, `SELECT ${COLUMNS} FROM ${this.t.pushConfigs} WHERE run_id = $1 AND config_id = $2`, [
      runId,
      configId,
    ]);
    return row ? this.seal.row("push_configs", row) : null;
  }

  async list(runId: string): Promise<PushConfig[]> {
    const rows = await query<PushConfig>(
      this.pool,
      `SELECT ${COLUMNS} FROM ${this.t.pushConfigs} WHERE run_id = $1 ORDER BY created_at, config_id COLLATE "C"`,
      [runId],
    );
    return this.seal.rows("push_configs", rows);
  }

  async delete(runId: string, configId: string): Promise<boolean> {
    const rows = await query(this.pool, `DELETE FROM ${this.t.pushConfigs} WHERE run_id = $1 AND config_id = $2 RETURNING 1`, [
      runId,
      configId,
    ]);
    return rows.length > 0;
  }
}
