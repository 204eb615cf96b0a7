import {
  ASSISTANT_DEPENDENTS,
  ConflictError,
  nowIso,
  type Assistant,
  type AssistantDependent,
  type AssistantPatch,
  type AssistantRepo,
  type AssistantSearch,
  type AssistantVersion,
  type Metadata,
  type NewAssistant,
} from "@agent-server/core";
import type pg from "pg";
import { Params, query, toDbJson, transaction, whereClause, limitOffset, type Tables } from "./db.js";
import { authFilterSql, containsSql } from "./filters-sql.js";
import type { Sealer } from "./sealing.js";

/** Where each of an assistant's dependents (core's assistant cascade) lives; `$1` is its id. */
const dependentSql = (t: Tables): Record<AssistantDependent, string[]> => ({
  versions: [], // ON DELETE CASCADE from assistants
  crons: [`DELETE FROM ${t.crons} WHERE assistant_id = $1`],
});

const COLUMNS = `assistant_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at`;
const VERSION_COLUMNS = `assistant_id, version, graph_id, name, description, config, context, metadata, created_at`;
const SORTABLE = new Set(["assistant_id", "graph_id", "name", "created_at", "updated_at"]);

type Row = Assistant;

export class PostgresAssistantRepo implements AssistantRepo {
  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
  ) {}

  private readonly toAssistant = (row: Row): Assistant => ({ ...this.seal.row("assistants", row), context: row.context ?? null });
  private readonly toVersion = (row: AssistantVersion): AssistantVersion => ({
    ...this.seal.row("assistant_versions", row),
    context: row.context ?? null,
  });

  async create(input: NewAssistant, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Assistant> {
    // Serialize before any query: a bad value throws and writes nothing.
    const now = input.created_at ?? nowIso();
    const values = [
      input.assistant_id,
      input.graph_id,
      input.name ?? "Untitled",
      input.description ?? null,
      toDbJson(input.config ?? {}),
      toDbJson(input.context ?? null),
      this.seal.json("assistants", "metadata", input.metadata ?? {}),
      now,
    ];
    return transaction(this.pool, async (client) => {
      const [row] = await query<Row>(
        client,
        `INSERT INTO ${this.t.assistants} (${COLUMNS})
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, 1, $8, $8)
         ON CONFLICT (assistant_id) DO NOTHING RETURNING ${COLUMNS}`,
        values,
      );
      if (!row) {
        if (options?.ifExists !== "do_nothing") throw new ConflictError(`assistant ${input.assistant_id} already exists`);
        const [existing] = await query<Row>(client, `SELECT ${COLUMNS} FROM ${this.t.assistants} WHERE assistant_id = $1`, [
          input.assistant_id,
        ]);
        if (!existing) throw new ConflictError(`assistant ${input.assistant_id} was deleted concurrently`);
        return this.toAssistant(existing);
      }
      await query(
        client,
        `INSERT INTO ${this.t.assistantVersions} (${VERSION_COLUMNS})
         VALUES ($1, 1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8)`,
        values,
      );
      return this.toAssistant(row);
    });
  }

  async get(assistantId: string): Promise<Assistant | null> {
    const [row] = await query<Row>(this.pool, `SELECT ${COLUMNS} FROM ${this.t.assistants} WHERE assistant_id = $1`, [assistantId]);
    return row ? this.toAssistant(row) : null;
  }

  async update(assistantId: string, patch: AssistantPatch): Promise<Assistant | null> {
    const config = patch.config !== undefined ? toDbJson(patch.config) : null;
    const context = patch.context !== undefined ? toDbJson(patch.context) : null;
    const metadata = this.seal.json("assistant_versions", "metadata", patch.metadata ?? {});
    const now = nowIso();
    return transaction(this.pool, async (client) => {
      const [current] = await query<Row>(client, `SELECT ${COLUMNS} FROM ${this.t.assistants} WHERE assistant_id = $1 FOR UPDATE`, [
        assistantId,
      ]);
      if (!current) return null;
      const [{ next }] = await query<{ next: number }>(
        client,
        `SELECT COALESCE(max(version), 0) + 1 AS next FROM ${this.t.assistantVersions} WHERE assistant_id = $1`,
        [assistantId],
      );
      const [version] = await query<AssistantVersion>(
        client,
        `INSERT INTO ${this.t.assistantVersions} (${VERSION_COLUMNS})
         SELECT a.assistant_id, $2, COALESCE($3, a.graph_id), COALESCE($4, a.name),
                CASE WHEN $5::boolean THEN $6 ELSE a.description END,
                COALESCE($7::jsonb, a.config), CASE WHEN $8::boolean THEN $9::jsonb ELSE a.context END,
                a.metadata || $10::jsonb, $11
           FROM ${this.t.assistants} a WHERE a.assistant_id = $1
         RETURNING ${VERSION_COLUMNS}`,
        [
          assistantId,
          next,
          patch.graph_id ?? null,
          patch.name ?? null,
          patch.description !== undefined,
          patch.description ?? null,
          config,
          patch.context !== undefined,
          context,
          metadata,
          now,
        ],
      );
      return this.mirror(client, version!, now);
    });
  }

  async delete(assistantId: string): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      const [row] = await query(client, `SELECT 1 FROM ${this.t.assistants} WHERE assistant_id = $1 FOR UPDATE`, [assistantId]);
      if (!row) return false;
      const sql = dependentSql(this.t);
      for (const dependent of ASSISTANT_DEPENDENTS) for (const statement of sql[dependent]) await query(client, statement, [assistantId]);
      await query(client, `DELETE FROM ${this.t.assistants} WHERE assistant_id = $1`, [assistantId]);
      return true;
    });
  }

  async search(q: AssistantSearch): Promise<Assistant[]> {
    const params = new Params();
    const where = this.where(params, q);
    const field = q.sort_by && SORTABLE.has(q.sort_by) ? q.sort_by : "created_at";
    const dir = q.sort_order === "asc" ? "ASC NULLS FIRST" : "DESC NULLS LAST";
    const collate = field === "created_at" || field === "updated_at" ? "" : ` COLLATE "C"`;
    const seqDir = q.sort_order === "asc" ? "ASC" : "DESC";
    const rows = await query<Row>(
      this.pool,
      `SELECT ${COLUMNS} FROM ${this.t.assistants} ${whereClause(where)}
       ORDER BY ${field}${collate} ${dir}, seq ${seqDir} ${limitOffset(params, q.limit, q.offset, 10)}`,
      params.values,
    );
    return rows.map(this.toAssistant);
  }

  async count(q: Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number> {
    const params = new Params();
    const where = this.where(params, q);
    const [row] = await query<{ n: string }>(
      this.pool,
      `SELECT count(*) AS n FROM ${this.t.assistants} ${whereClause(where)}`,
      params.values,
    );
    return Number(row!.n);
  }

  async listVersions(assistantId: string, q?: { metadata?: Metadata; limit?: number; offset?: number }): Promise<AssistantVersion[]> {
    const params = new Params([assistantId]);
    const where = [`assistant_id = $1`];
    if (q?.metadata) where.push(containsSql(params, "metadata", q.metadata));
    const rows = await query<AssistantVersion>(
      this.pool,
      `SELECT ${VERSION_COLUMNS} FROM ${this.t.assistantVersions} ${whereClause(where)}
       ORDER BY version DESC ${limitOffset(params, q?.limit, q?.offset, 10)}`,
      params.values,
    );
    return rows.map(this.toVersion);
  }

  async setLatest(assistantId: string, version: number): Promise<Assistant | null> {
    return transaction(this.pool, async (client) => {
      const [row] = await query<AssistantVersion>(
        client,
        `SELECT ${VERSION_COLUMNS} FROM ${this.t.assistantVersions} WHERE assistant_id = $1 AND version = $2`,
        [assistantId, version],
      );
      if (!row) return null;
      return this.mirror(client, row, nowIso());
    });
  }

  /** Makes the assistant row mirror `version`. */
  private async mirror(client: pg.PoolClient, version: AssistantVersion, now: string): Promise<Assistant | null> {
    const [row] = await query<Row>(
      client,
      `UPDATE ${this.t.assistants} a SET graph_id = v.graph_id, name = v.name, description = v.description,
              config = v.config, context = v.context, metadata = v.metadata, version = v.version, updated_at = $3
         FROM ${this.t.assistantVersions} v
        WHERE a.assistant_id = $1 AND v.assistant_id = a.assistant_id AND v.version = $2
       RETURNING a.assistant_id, a.graph_id, a.name, a.description, a.config, a.context, a.metadata, a.version, a.created_at, a.updated_at`,
      [version.assistant_id, version.version, now],
    );
    return row ? this.toAssistant(row) : null;
  }

  private where(params: Params, q: Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">): string[] {
    const where: string[] = [];
    if (q.graph_id !== undefined) where.push(`graph_id = ${params.add(q.graph_id)}`);
    if (q.name !== undefined) where.push(`strpos(lower(name), lower(${params.add(q.name)})) > 0`);
    if (q.metadata) where.push(containsSql(params, "metadata", q.metadata));
    where.push(...authFilterSql(params, "metadata", q.filter));
    return where;
  }
}
