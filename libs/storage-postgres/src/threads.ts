import {
  ConflictError,
  jsonContains,
  matchesAuthFilter,
  nowIso,
  parseValuesRef,
  planThreadCopy,
  valuesFromCheckpoint,
  type ExpiredThread,
  type NewThread,
  type PruneStrategy,
  type RunInternal,
  type RunResult,
  type Thread,
  type ThreadHeader,
  type ThreadPatch,
  type ThreadRepo,
  type ThreadSearch,
  type ThreadTtlStrategy,
} from "@agent-server/core";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type pg from "pg";
import { checkpointSql } from "./checkpointer.js";
import {
  limitOffset,
  Params,
  pgCode,
  query,
  RESULT_COLUMNS,
  resultValues,
  storedResult,
  toDbJson,
  transaction,
  UNIQUE_VIOLATION,
  whereClause,
  type Queryable,
  type Tables,
} from "./db.js";
import { authFilterSql, containsSql } from "./filters-sql.js";
import { deleteRunsWhere } from "./runs.js";
import { countMatching, pageMatching } from "./sealed-scan.js";
import type { Sealer } from "./sealing.js";

const COLUMNS = `thread_id, created_at, updated_at, metadata, config, status, "values", values_ref, interrupts, error`;
const HEADER_COLUMNS = `thread_id, created_at, updated_at, metadata, config, status, error`;
const SORTABLE = new Set(["thread_id", "status", "created_at", "updated_at"]);

type SearchFilter = Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order">;

/**
 * A thread as COLUMNS read it: `values_ref` is the `ThreadValuesRef` (core's rules/thread-values.ts) while
 * the values are only in that checkpoint ("values" is then NULL), null otherwise. Never returned as is:
 * `withValues` turns it into the thread's values.
 */
type ThreadRow = Thread & { values_ref: unknown };

export class PostgresThreadRepo implements ThreadRepo {
  readonly storesValuesAt = true;
  private readonly checkpoints: ReturnType<typeof checkpointSql>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    /** The driver's checkpointer: the values a thread's `values_ref` points to are read through it. */
    private readonly checkpointer: BaseCheckpointSaver,
    private readonly seal: Sealer,
  ) {
    this.checkpoints = checkpointSql(t.schema);
  }

  async create(input: NewThread, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Thread> {
    const now = input.created_at ?? nowIso();
    const values = [
      input.thread_id,
      now,
      this.seal.json("threads", "metadata", input.metadata ?? {}),
      this.seal.json("threads", "config", input.config ?? {}),
      input.status ?? "idle",
      input.ttl?.strategy ?? null,
      input.ttl?.minutes ?? null,
    ];
    const [row] = await query<ThreadRow>(
      this.pool,
      `INSERT INTO ${this.t.threads} (thread_id, created_at, updated_at, metadata, config, status, "values", interrupts, error, ttl_strategy, ttl_minutes)
       VALUES ($1, $2, $2, $3::jsonb, $4::jsonb, $5, NULL, '{}', 'null', $6, $7)
       ON CONFLICT (thread_id) DO NOTHING RETURNING ${COLUMNS}`,
      values,
    );
    if (row) return this.withValues(row);
    if (options?.ifExists === "do_nothing") {
      const existing = await this.get(input.thread_id);
      if (existing) return existing;
    }
    throw new ConflictError(`thread ${input.thread_id} already exists`);
  }

  async get(threadId: string): Promise<Thread | null> {
    const [row] = await query<ThreadRow>(this.pool, `SELECT ${COLUMNS} FROM ${this.t.threads} WHERE thread_id = $1`, [threadId]);
    return row ? this.withValues(row) : null;
  }

  /**
   * The thread with its values: a row holding a pointer reads them from the checkpoint it names (one
   * checkpoint load, O(state)), then keeps them in the row with one statement, which writes only while the
   * pointer is still the row's (a newer settlement's pointer, or written values, win) and returns them as
   * stored, whether it wrote or not.
   */
  private async withValues(row: ThreadRow): Promise<Thread> {
    const { values_ref: valuesRef, ...thread } = this.seal.row("threads", row);
    if (valuesRef === null || valuesRef === undefined) return thread;
    const ref = parseValuesRef(valuesRef);
    const values = ref ? await valuesFromCheckpoint(this.checkpointer, thread.thread_id, ref) : null;
    const [kept] = await query<Pick<Thread, "values">>(
      this.pool,
      `WITH kept AS (
         UPDATE ${this.t.threads} SET "values" = $2::jsonb, values_ref = NULL WHERE thread_id = $1 AND values_ref = $3::jsonb)
       SELECT $2::jsonb AS "values"`,
      [thread.thread_id, values === null ? null : this.seal.json("threads", "values", values), toDbJson(valuesRef)],
    );
    return { ...thread, values: (this.seal.open("threads", "values", kept?.values) as Thread["values"] | undefined) ?? null };
  }

  /**
   * Every thread still holding a pointer gets its values, so a SQL filter on "values" sees them:
   * O(threads holding a pointer), read from the partial index threads_values_ref_idx, never a scan of
   * every thread. Each costs a checkpoint load and one conditional write (`withValues`).
   */
  private async keepAllValues(): Promise<void> {
    const pending = await query<Pick<ThreadRow, "thread_id" | "values_ref">>(
      this.pool,
      `SELECT thread_id, values_ref FROM ${this.t.threads} WHERE values_ref IS NOT NULL`,
    );
    for (const row of pending) await this.withValues({ ...row, values: null } as ThreadRow);
  }

  async getHeader(threadId: string): Promise<ThreadHeader | null> {
    const [row] = await query<ThreadHeader>(this.pool, `SELECT ${HEADER_COLUMNS} FROM ${this.t.threads} WHERE thread_id = $1`, [threadId]);
    return row ? this.seal.row("threads", row) : null;
  }

  async update(threadId: string, patch: ThreadPatch): Promise<Thread | null> {
    // Serialize everything first: a value that cannot be serialized leaves the thread untouched.
    const params = new Params([threadId, nowIso()]);
    const sets = [`updated_at = $2`];
    if (patch.metadata !== undefined)
      sets.push(`metadata = metadata || ${params.add(this.seal.json("threads", "metadata", patch.metadata))}::jsonb`);
    if (patch.config !== undefined) sets.push(`config = ${params.add(this.seal.json("threads", "config", patch.config))}::jsonb`);
    if (patch.status !== undefined) sets.push(`status = ${params.add(patch.status)}`);
    // Values written clear a pointer; a pointer (core's rules/thread-values.ts) replaces written values.
    if (patch.values !== undefined) {
      const values = patch.values === null ? null : this.seal.json("threads", "values", patch.values);
      sets.push(`"values" = ${params.add(values)}::jsonb`, `values_ref = NULL`);
    } else if (patch.valuesAt !== undefined) {
      sets.push(`"values" = NULL`, `values_ref = ${params.add(toDbJson(patch.valuesAt))}::jsonb`);
    }
    if (patch.interrupts !== undefined)
      sets.push(`interrupts = ${params.add(this.seal.json("threads", "interrupts", patch.interrupts))}::jsonb`);
    if ("error" in patch) sets.push(`error = ${params.add(this.seal.json("threads", "error", patch.error))}::jsonb`);
    if (patch.ttl !== undefined) {
      sets.push(
        `ttl_strategy = ${params.add(patch.ttl?.strategy ?? null)}`,
        `ttl_minutes = ${params.add(patch.ttl?.minutes ?? null)}::float8`,
      );
    }
    const [row] = await query<ThreadRow>(
      this.pool,
      `UPDATE ${this.t.threads} SET ${sets.join(", ")} WHERE thread_id = $1 RETURNING ${COLUMNS}`,
      params.values,
    );
    return row ? this.withValues(row) : null;
  }

  async delete(threadId: string): Promise<boolean> {
    return transaction(this.pool, (client) => this.deleteIn(client, threadId));
  }

  async search(q: ThreadSearch): Promise<Thread[]> {
    if (q.values) await this.keepAllValues();
    const params = new Params();
    const { where, matches } = this.where(params, q);
    if (q.ids) where.push(`thread_id = ANY(${params.add(q.ids)}::text[])`);
    const field = q.sort_by && SORTABLE.has(q.sort_by) ? q.sort_by : "created_at";
    const collate = field === "thread_id" || field === "status" ? ` COLLATE "C"` : "";
    const dir = q.sort_order === "asc" ? "ASC" : "DESC";
    const select = `SELECT ${COLUMNS} FROM ${this.t.threads} ${whereClause(where)} ORDER BY ${field}${collate} ${dir}, seq ${dir}`;
    const rows = matches
      ? await pageMatching(this.pool, select, params.values, matches, q, 10)
      : await query<ThreadRow>(this.pool, `${select} ${limitOffset(params, q.limit, q.offset, 10)}`, params.values);
    const threads: Thread[] = [];
    for (const row of rows) threads.push(await this.withValues(row));
    return threads;
  }

  async count(q: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order" | "ids">): Promise<number> {
    if (q.values) await this.keepAllValues();
    const params = new Params();
    const { where, matches } = this.where(params, q);
    if (matches)
      return countMatching(this.pool, `SELECT metadata, "values" FROM ${this.t.threads} ${whereClause(where)}`, params.values, matches);
    const [row] = await query<{ n: string }>(this.pool, `SELECT count(*) AS n FROM ${this.t.threads} ${whereClause(where)}`, params.values);
    return Number(row!.n);
  }

  /**
   * One transaction: the thread row (new created_at/updated_at), its runs as core's copy plan gives them
   * (in insertion order), then every checkpoint, blob and pending write, with checkpoint metadata
   * `thread_id` remapped (`run_id` keeps naming the run that wrote the checkpoint, as on the official
   * server). task_root/task_id are generated from the remapped internals.
   */
  async copy(sourceThreadId: string, newThreadId: string): Promise<Thread | null> {
    let copied: ThreadRow | null;
    try {
      copied = await transaction(this.pool, async (client) => {
        const now = nowIso();
        const [thread] = await query<ThreadRow>(
          client,
          // The copy keeps the source's TTL (its clock starts at the copy) and its values' pointer: the
          // checkpoints are copied with their ids below.
          `INSERT INTO ${this.t.threads} (thread_id, created_at, updated_at, metadata, config, status, "values", values_ref, interrupts, error, ttl_strategy, ttl_minutes)
           SELECT $2, $3, $3, metadata, config, status, "values", values_ref, interrupts, error, ttl_strategy, ttl_minutes FROM ${this.t.threads} WHERE thread_id = $1
           RETURNING ${COLUMNS}`,
          [sourceThreadId, newThreadId, now],
        );
        if (!thread) return null;
        const runs = await query<{ run_id: string; internal: RunInternal; result: RunResult | null }>(
          client,
          `SELECT r.run_id, r.internal, ${storedResult("rr")} AS result FROM ${this.t.runs} r
             LEFT JOIN ${this.t.runResults} rr ON rr.run_id = r.run_id
            WHERE r.thread_id = $1 ORDER BY r.seq`,
          [sourceThreadId],
        );
        for (const run of runs) {
          this.seal.row("runs", run);
          this.seal.row("run_results", run);
        }
        for (const copy of planThreadCopy(sourceThreadId, newThreadId, runs)) {
          await query(
            client,
            `INSERT INTO ${this.t.runs} (run_id, thread_id, assistant_id, status, metadata, kwargs, multitask_strategy, internal,
                                         lease_owner, lease_expires_at, attempt, created_at, updated_at, error, cancel_reason)
             SELECT $2, $3, assistant_id, status, metadata, kwargs, multitask_strategy, $4::jsonb,
                    $5, $6, attempt, created_at, updated_at, error, cancel_reason
               FROM ${this.t.runs} WHERE run_id = $1`,
            [
              copy.source_run_id,
              copy.run_id,
              copy.thread_id,
              this.seal.json("runs", "internal", copy.internal),
              copy.lease?.owner ?? null,
              copy.lease?.until ?? null,
            ],
          );
          if (copy.result) {
            await query(
              client,
              `INSERT INTO ${this.t.runResults} (run_id, ${RESULT_COLUMNS}, created_at)
               SELECT $2, ${resultValues("$3")}, created_at FROM ${this.t.runResults} WHERE run_id = $1`,
              [copy.source_run_id, copy.run_id, this.seal.json("run_results", "result", copy.result)],
            );
          }
        }
        for (const sql of this.checkpoints.copyThread) await query(client, sql, [sourceThreadId, newThreadId]);
        return thread;
      });
    } catch (error) {
      if (pgCode(error) === UNIQUE_VIOLATION) throw new ConflictError(`thread ${newThreadId} already exists`);
      throw error;
    }
    // After the commit: the checkpointer reads the copied checkpoints through the pool.
    return copied ? this.withValues(copied) : null;
  }

  async prune(threadIds: string[], strategy: PruneStrategy): Promise<number> {
    let pruned = 0;
    for (const threadId of new Set(threadIds)) {
      const done = await transaction(this.pool, async (client) => {
        if (strategy === "delete") return this.deleteIn(client, threadId);
        const [row] = await query(client, `SELECT 1 FROM ${this.t.threads} WHERE thread_id = $1`, [threadId]);
        if (!row) return false;
        for (const sql of this.checkpoints.pruneKeepLatest) await query(client, sql, [threadId]);
        return true;
      });
      if (done) pruned += 1;
    }
    return pruned;
  }

  /** The expiry index's range up to `now`, skipping threads with a pending or running run. */
  async listExpired(now: string, limit: number): Promise<ExpiredThread[]> {
    return query<ExpiredThread>(
      this.pool,
      `SELECT thread_id, ttl_strategy AS strategy FROM ${this.t.threads} t
        WHERE expires_at <= $1 AND ${this.idle()}
        ORDER BY expires_at, seq LIMIT $2`,
      [now, Math.max(0, Math.floor(limit))],
    );
  }

  /**
   * One transaction that locks the thread row if it is still expired and idle (`SKIP LOCKED`: a row another
   * process sweeps, or a claim holds, is left alone); a sweep waiting behind another would find it
   * deleted, or its clock restarted, anyway. So no thread is swept twice.
   */
  async sweep(threadId: string, now: string): Promise<ThreadTtlStrategy | null> {
    return transaction(this.pool, async (client) => {
      const [row] = await query<{ strategy: ThreadTtlStrategy }>(
        client,
        `SELECT ttl_strategy AS strategy FROM ${this.t.threads} t
          WHERE thread_id = $1 AND expires_at <= $2 AND ${this.idle()} FOR UPDATE SKIP LOCKED`,
        [threadId, now],
      );
      if (!row) return null;
      if (row.strategy === "delete") await this.deleteIn(client, threadId);
      else {
        for (const sql of this.checkpoints.pruneKeepLatest) await query(client, sql, [threadId]);
        await query(client, `UPDATE ${this.t.threads} SET updated_at = $2 WHERE thread_id = $1`, [threadId, now]);
      }
      return row.strategy;
    });
  }

  private idle(): string {
    return `NOT EXISTS (SELECT 1 FROM ${this.t.runs} r WHERE r.thread_id = t.thread_id AND r.status IN ('pending', 'running'))`;
  }

  /** Thread row, runs (results and push configs cascade), their events, and checkpoints, in the caller's transaction. */
  private async deleteIn(client: Queryable, threadId: string): Promise<boolean> {
    const [row] = await query(client, `SELECT 1 FROM ${this.t.threads} WHERE thread_id = $1 FOR UPDATE`, [threadId]);
    if (!row) return false;
    await deleteRunsWhere(client, this.t, `thread_id = $1`, [threadId]);
    for (const sql of this.checkpoints.deleteThread) await query(client, sql, [threadId]);
    await query(client, `DELETE FROM ${this.t.threads} WHERE thread_id = $1`, [threadId]);
    return true;
  }

  /**
   * The search's conditions in SQL, and `matches` for those SQL cannot evaluate with a key set: a values
   * filter (sealed values), a metadata or auth filter naming a LANGGRAPH_AES_JSON_KEYS key. Those are
   * matched in the process on opened rows (sealed-scan.ts); without a key everything stays in SQL.
   */
  private where(params: Params, q: SearchFilter): { where: string[]; matches?: (row: ThreadRow) => boolean } {
    const where: string[] = [];
    const inProcess: Array<(row: ThreadRow) => boolean> = [];
    // threads_status_idx holds the threads that are not idle (migration 0013): naming its condition lets a
    // named statement's generic plan use it.
    if (q.status !== undefined) where.push(`status = ${params.add(q.status)}${q.status === "idle" ? "" : " AND status <> 'idle'"}`);
    const { metadata, values, filter } = q;
    if (metadata && this.seal.touchesSealedKeys(metadata)) inProcess.push((row) => jsonContains(row.metadata, metadata));
    else if (metadata) where.push(containsSql(params, "metadata", metadata));
    if (values && this.seal.sealing) inProcess.push((row) => jsonContains(row.values, values));
    else if (values) where.push(containsSql(params, `"values"`, values));
    if (filter && this.seal.touchesSealedKeys(filter)) inProcess.push((row) => matchesAuthFilter(row.metadata, filter));
    else where.push(...authFilterSql(params, "metadata", filter));
    if (inProcess.length === 0) return { where };
    // Only what the tests read is opened here; a row that matches is opened whole when it is returned.
    const matches = (row: ThreadRow): boolean => {
      row.metadata = this.seal.open("threads", "metadata", row.metadata) as ThreadRow["metadata"];
      row.values = this.seal.open("threads", "values", row.values) as ThreadRow["values"];
      return inProcess.every((test) => test(row));
    };
    return { where, matches };
  }
}
