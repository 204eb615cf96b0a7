import { nowIso, type NewPushConfig, type PushConfig, type PushConfigRepo } from "@agent-server/core";
import { fromRow, returningRow, type Db } from "./db.js";
import type { TableCodec, TableCodecs } from "./sealing.js";

interface PushConfigRow {
  run_id: string;
  config_id: string;
  url: string;
  token: string | null;
  authentication: string | null;
  created_at: string;
}

const COLUMNS = "run_id, config_id, url, token, authentication, created_at";

/**
 * A2A push notification configs (table push_configs, migration 5). Rows reference their run with
 * ON DELETE CASCADE, so run/thread deletes and truncate take them along. Thread copy does not
 * copy them: they were registered for the original task's notifications.
 */
export class SqlitePushConfigRepo implements PushConfigRepo {
  private readonly upsert;
  private readonly byKey;
  private readonly byRun;
  private readonly remove;
  private readonly c: TableCodec<"push_configs">;

  constructor(db: Db, codecs: TableCodecs) {
    this.c = codecs.push_configs;
    // One statement: nothing is written for an unknown run (the SELECT yields no row); a replacement keeps
    // created_at (the conflict update does not touch it).
    this.upsert = db.prepare(
      `INSERT INTO push_configs (${COLUMNS})
       SELECT @run_id, @config_id, @url, @token, @authentication, @created_at WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = @run_id)
       ON CONFLICT (run_id, config_id) DO UPDATE SET url = excluded.url, token = excluded.token, authentication = excluded.authentication
       RETURNING ${COLUMNS}`,
    );
    this.byKey = db.prepare(`SELECT ${COLUMNS} FROM push_configs WHERE run_id = ? AND config_id = ?`);
    this.byRun = db.prepare(`SELECT ${COLUMNS} FROM push_configs WHERE run_id = ? ORDER BY created_at, config_id`);
    this.remove = db.prepare("DELETE FROM push_configs WHERE run_id = ? AND config_id = ?");
  }

  /** `options.run` needs nothing here: SQLite serializes writers, so a settle sees every config committed before it. */
  async put(input: NewPushConfig): Promise<PushConfig | null> {
    const row = returningRow<PushConfigRow>(this.upsert, {
      run_id: input.run_id,
      config_id: input.config_id,
      url: input.url,
      token: this.c.plainText("token", input.token ?? null),
      authentication: input.authentication == null ? null : this.c.text("authentication", input.authentication),
      created_at: nowIso(),
    });
    return row ? this.toConfig(row) : null;
  }

  async get(runId: string, configId: string): Promise<PushConfig | null> {
    const row = this.byKey.get(runId, configId) as PushConfigRow | undefined;
    return row ? this.toConfig(row) : null;
  }

  async list(runId: string): Promise<PushConfig[]> {
    return (this.byRun.all(runId) as PushConfigRow[]).map((row) => this.toConfig(row));
  }

  private toConfig(row: PushConfigRow): PushConfig {
    return fromRow(row, { token: null, authentication: null }, this.c);
  }

  async delete(runId: string, configId: string): Promise<boolean> {
    return this.remove.run(runId, configId).changes > 0;
  }
}
