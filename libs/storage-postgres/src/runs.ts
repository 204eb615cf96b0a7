import {
  ACTIVE_RUN_STATUSES,
  addMs,
  claimOnCreate,
  ConflictError,
  InvalidInputError,
  NotFoundError,
  nowIso,
  ThreadExistsError,
  type ClaimedRun,
  type NewRun,
  type NewThread,
  type RunCreateOptions,
  type Run,
  type RunError,
  type RunInternal,
  type RunRepo,
  type RequeueGuard,
  type RunLease,
  type RunResult,
  type RunSearch,
  type RunSettlement,
  type RunStatus,
  type SettledRun,
  type TaskRuns,
} from "@agent-server/core";
import type pg from "pg";
import { checkpointSql } from "./checkpointer.js";
import {
  encodeString,
  FOREIGN_KEY_VIOLATION,
  limitOffset,
  Params,
  pgCode,
  query,
  queryCount,
  RESULT_COLUMNS,
  resultValues,
  storedResult,
  transaction,
  UNIQUE_VIOLATION,
  whereClause,
  type Tables,
} from "./db.js";
import { containsSql } from "./filters-sql.js";
import type { CheckpointBatches } from "./checkpoint-batches.js";
import { errorJson, settleRun } from "./run-settle.js";
import { ACTIVE_RUNS, deleteRunsWhere, prefixed, RUN_COLUMNS, taskSql } from "./run-sql.js";
import type { Sealer } from "./sealing.js";

export { deleteRunsWhere, RUN_COLUMNS, taskSql };

/** How many eligible pending runs one claim looks at before giving up (each may be locked or taken). */
const CLAIM_CANDIDATES = 32;

export class PostgresRunRepo implements RunRepo {
  private readonly checkpoints: ReturnType<typeof checkpointSql>;
  private readonly tasks: ReturnType<typeof taskSql>;

  /** `create` under `rejectIfThreadActive`: inserts nothing while the thread has an active run. */
  private readonly guardedInsert: string;
  /**
   * `create` with a claim, under the thread row's lock: the run written as `claimNext` would claim it
   * (running, the lease, attempt 1, the thread busy) when no other run of the thread is active or holds a
   * live lease, else pending; `onlyIfIdle` (rejectIfThreadActive) inserts nothing while a run is active.
   * $13 owner, $14 the lease's end.
   */
  private readonly claimedInsert: { onlyIfIdle: string; always: string };
  /** `create` with a claim on a thread nobody else knows yet (`RunClaim.newThread`): one statement, no lock. */
  private readonly newThreadClaimedInsert: string;

  /**
   * `createWithThread`: the thread (ON CONFLICT DO NOTHING) and the run on it, one statement. No thread
   * row inserted (its id is taken): no run either. $13 owner, $14 the lease's end, $15 attempt (NULL and 0
   * unless claimed); the thread: $16 created_at, $17 metadata, $18 config, $19 status, $20–$21 its TTL.
   */
  private readonly insertWithThread: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
    /** The saver's queued checkpoint writes, which a settlement naming their chain takes in (`settle`). */
    private readonly checkpointBatches: CheckpointBatches,
  ) {
    this.checkpoints = checkpointSql(t.schema);
    this.tasks = taskSql(t.runs);
    const noActiveRun = `NOT EXISTS (SELECT 1 FROM ${t.runs} WHERE thread_id = $2 AND status IN ('pending', 'running'))`;
    this.guardedInsert = `INSERT INTO ${t.runs} (${RUN_COLUMNS}, internal, error)
      SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, $12::jsonb WHERE ${noActiveRun}
      RETURNING ${RUN_COLUMNS}`;
    const claimedInsert = (reject: boolean) => `WITH lease AS (
        SELECT EXISTS (SELECT 1 FROM ${t.runs} x WHERE x.thread_id = $2 AND (x.status IN ('pending', 'running')
                          OR (x.lease_owner IS NOT NULL AND x.lease_expires_at > $5::timestamptz))) AS held),
      inserted AS (
        INSERT INTO ${t.runs} (${RUN_COLUMNS}, internal, error, lease_owner, lease_expires_at, attempt)
        SELECT $1, $2, $3, $4, $5, CASE WHEN held THEN $6 ELSE 'running' END, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, $12::jsonb,
               CASE WHEN held THEN NULL ELSE $13 END, CASE WHEN held THEN NULL ELSE $14::timestamptz END, CASE WHEN held THEN 0 ELSE 1 END
          FROM lease ${reject ? `WHERE ${noActiveRun}` : ""}
        RETURNING ${RUN_COLUMNS}),
      busy AS (
        UPDATE ${t.threads} SET status = 'busy', updated_at = $5
         WHERE thread_id = $2 AND EXISTS (SELECT 1 FROM inserted WHERE status = 'running'))
      SELECT * FROM inserted`;
    this.claimedInsert = { onlyIfIdle: claimedInsert(true), always: claimedInsert(false) };
    this.newThreadClaimedInsert = `WITH inserted AS (
        INSERT INTO ${t.runs} (${RUN_COLUMNS}, internal, error, lease_owner, lease_expires_at, attempt)
        VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, $12::jsonb, $13, $14::timestamptz, 1)
        RETURNING ${RUN_COLUMNS}),
      busy AS (UPDATE ${t.threads} SET status = 'busy', updated_at = $5 WHERE thread_id = $2)
      SELECT * FROM inserted`;
    this.insertWithThread = `WITH thread AS (
        INSERT INTO ${t.threads} (thread_id, created_at, updated_at, metadata, config, status, "values", interrupts, error, ttl_strategy, ttl_minutes)
        VALUES ($2, $16, $16, $17::jsonb, $18::jsonb, $19, NULL, '{}', 'null', $20, $21)
        ON CONFLICT (thread_id) DO NOTHING RETURNING thread_id)
      INSERT INTO ${t.runs} (${RUN_COLUMNS}, internal, error, lease_owner, lease_expires_at, attempt)
      SELECT $1, thread.thread_id, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, $12::jsonb, $13, $14::timestamptz, $15
        FROM thread
      RETURNING ${RUN_COLUMNS}`;
  }

  async create(input: NewRun, options?: RunCreateOptions): Promise<Run> {
    const now = nowIso();
    const values = this.runValues(input, options, now);
    const insert = `INSERT INTO ${this.t.runs} (${RUN_COLUMNS}, internal, error)
      VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, $12::jsonb) RETURNING ${RUN_COLUMNS}`;
    const claim = claimOnCreate(input, options, now);
    try {
      if (claim?.newThread) {
        values[5] = "running";
        const [run] = await this.runs(
          query<Run>(this.pool, this.newThreadClaimedInsert, [...values, claim.owner, addMs(now, claim.leaseMs)]),
        );
        return run!;
      }
      if (!options?.rejectIfThreadActive && !claim) {
        const [run] = await this.runs(query<Run>(this.pool, insert, values));
        return run!;
      }
      // The thread row lock serializes every creator of this thread's runs, in every process; the
      // guarded insert is a statement of its own after the lock is granted, so its active-run check sees
      // the previous creator's commit (in the lock's statement it would read an older snapshot).
      return await transaction(this.pool, async (client) => {
        const [thread] = await query(client, `SELECT 1 FROM ${this.t.threads} WHERE thread_id = $1 FOR NO KEY UPDATE`, [input.thread_id]);
        if (!thread) throw new NotFoundError(`thread ${input.thread_id} not found`);
        const reject = options?.rejectIfThreadActive === true;
        const [run] = await this.runs(
          query<Run>(
            client,
            claim ? this.claimedInsert[reject ? "onlyIfIdle" : "always"] : this.guardedInsert,
            claim ? [...values, claim.owner, addMs(now, claim.leaseMs)] : values,
          ),
        );
        if (!run) throw new ConflictError(`thread ${input.thread_id} has an active run`);
        return run;
      });
    } catch (error) {
      if (pgCode(error) === FOREIGN_KEY_VIOLATION) throw new NotFoundError(`thread ${input.thread_id} not found`);
      if (pgCode(error) === UNIQUE_VIOLATION) throw new ConflictError(`run ${input.run_id} already exists`);
      throw error;
    }
  }

  /** One statement (`insertWithThread`): the thread is written `busy` when the run is claimed (always, on a new thread). */
  async createWithThread(thread: NewThread, input: NewRun, options?: RunCreateOptions): Promise<Run> {
    if (input.thread_id !== thread.thread_id) throw new InvalidInputError(`run ${input.run_id} is not of thread ${thread.thread_id}`);
    const now = nowIso();
    const values = this.runValues(input, options, now);
    const claim = claimOnCreate(input, options, now);
    if (claim) values[5] = "running";
    const threadValues = [
      thread.created_at ?? now,
      this.seal.json("threads", "metadata", thread.metadata ?? {}),
      this.seal.json("threads", "config", thread.config ?? {}),
      claim ? "busy" : (thread.status ?? "idle"),
      thread.ttl?.strategy ?? null,
      thread.ttl?.minutes ?? null,
    ];
    const lease = claim ? [claim.owner, addMs(now, claim.leaseMs), 1] : [null, null, 0];
    try {
      const [run] = await this.runs(query<Run>(this.pool, this.insertWithThread, [...values, ...lease, ...threadValues]));
      if (!run) throw new ThreadExistsError(`thread ${thread.thread_id} already exists`);
      return run;
    } catch (error) {
      if (pgCode(error) === UNIQUE_VIOLATION) throw new ConflictError(`run ${input.run_id} already exists`);
      throw error;
    }
  }

  /** A new run's parameters $1–$12 (its JSON serialized, and sealed, before anything is sent). */
  private runValues(input: NewRun, options: RunCreateOptions | undefined, now: string): unknown[] {
    return [
      input.run_id,
      input.thread_id,
      input.assistant_id,
      input.created_at ?? now,
      now,
      input.status ?? "pending",
      this.seal.json("runs", "metadata", input.metadata ?? {}),
      this.seal.json("runs", "kwargs", input.kwargs ?? {}),
      input.multitask_strategy ?? "reject",
      input.cancel_reason ?? null,
      this.seal.json("runs", "internal", options?.internal ?? {}),
      errorJson(this.seal, options?.error),
    ];
  }

  async get(runId: string, threadId?: string): Promise<Run | null> {
    const params = new Params([runId]);
    const where = [`run_id = $1`];
    if (threadId !== undefined) where.push(`thread_id = ${params.add(threadId)}`);
    const [run] = await this.runs(query<Run>(this.pool, `SELECT ${RUN_COLUMNS} FROM ${this.t.runs} ${whereClause(where)}`, params.values));
    return run ?? null;
  }

  async search(q: RunSearch): Promise<Run[]> {
    const params = new Params();
    const where: string[] = [];
    if (q.thread_id !== undefined) where.push(`thread_id = ${params.add(q.thread_id)}`);
    if (q.status !== undefined) {
      const statuses = Array.isArray(q.status) ? q.status : [q.status];
      where.push(`status = ANY(${params.add(statuses)}::text[])`);
      // Pending and running runs only (cancelling by status): the partial index of active runs serves it.
      if (statuses.every((status) => ACTIVE_RUN_STATUSES.includes(status))) where.push(ACTIVE_RUNS);
    }
    // O(runs the other predicates leave): no index on runs' metadata (migration 0012).
    if (q.metadata) where.push(containsSql(params, "metadata", q.metadata));
    return this.runs(
      query<Run>(
        this.pool,
        `SELECT ${RUN_COLUMNS} FROM ${this.t.runs} ${whereClause(where)}
         ORDER BY created_at DESC, seq DESC ${limitOffset(params, q.limit, q.offset, 10)}`,
        params.values,
      ),
    );
  }

  async transition(
    runId: string,
    to: RunStatus,
    options?: { from?: readonly RunStatus[]; owner?: string; error?: RunError; cancelReason?: string },
  ): Promise<Run | null> {
    const params = new Params([runId, to, nowIso(), errorJson(this.seal, options?.error), options?.cancelReason ?? null]);
    const where = [`run_id = $1`];
    if (options?.from) where.push(`status = ANY(${params.add([...options.from])}::text[])`);
    if (options?.owner !== undefined) where.push(`lease_owner = ${params.add(options.owner)}`);
    // The lease stays: the executor releases it when its settlement ends (`releaseLease`). The error and
    // a cancel's reason, when given, are written by the same UPDATE.
    const [run] = await this.runs(
      query<Run>(
        this.pool,
        `UPDATE ${this.t.runs} SET status = $2, updated_at = $3, error = COALESCE($4::jsonb, error), cancel_reason = COALESCE($5, cancel_reason)
         ${whereClause(where)}
         RETURNING ${RUN_COLUMNS}`,
        params.values,
      ),
    );
    return run ?? null;
  }

  /** One statement (see `settleRun`). */
  async settle(runId: string, to: RunStatus, options: RunSettlement): Promise<SettledRun | null> {
    return settleRun(this.pool, this.t, this.seal, this.checkpointBatches, RUN_COLUMNS, runId, to, options);
  }

  async getLease(runId: string): Promise<{ owner: string; expires_at: string } | null> {
    const [row] = await query<{ owner: string; expires_at: string }>(
      this.pool,
      `SELECT lease_owner AS owner, lease_expires_at AS expires_at FROM ${this.t.runs} WHERE run_id = $1 AND lease_owner IS NOT NULL`,
      [runId],
    );
    return row ?? null;
  }

  async releaseLease(runId: string, owner: string): Promise<boolean> {
    const released = await queryCount(
      this.pool,
      `UPDATE ${this.t.runs} SET lease_owner = NULL, lease_expires_at = NULL
        WHERE run_id = $1 AND lease_owner = $2 AND status <> 'running'`,
      [runId, owner],
    );
    return released > 0;
  }

  /**
   * One transaction: list the oldest eligible pending runs (no running run on their thread), then for
   * each, lock its thread row with `FOR NO KEY UPDATE SKIP LOCKED` (another claimer holds it: skip) and
   * claim the run with a guarded UPDATE whose snapshot is taken after the lock is granted, so it sees any
   * claim another process committed on that thread. The thread lock is what keeps "one running run per
   * thread" across processes; the `status = 'pending'` guard keeps two claimers off the same run.
   */
  async claimNext(options: { owner: string; leaseMs: number; now?: string }): Promise<ClaimedRun | null> {
    const now = options.now ?? nowIso();
    const leaseUntil = addMs(now, options.leaseMs);
    const claimedAt = nowIso();
    // Another run of the thread is running, or still held by its executor (cancelled, still unwinding).
    const threadHeld = (thread: string, self: string, at: string) =>
      `SELECT 1 FROM ${this.t.runs} x WHERE x.thread_id = ${thread} AND x.run_id <> ${self}
          AND (x.status = 'running' OR (x.lease_owner IS NOT NULL AND x.lease_expires_at > ${at}::timestamptz))`;
    // Most claims find nothing (a pool asks again after each claim and each run's end): the candidates
    // are read outside a transaction, which only a claim that has one to take opens.
    const candidates = await query<{ run_id: string; thread_id: string }>(
      this.pool,
      `SELECT r.run_id, r.thread_id FROM ${this.t.runs} r
        WHERE r.status = 'pending' AND r.created_at <= $1
          AND NOT EXISTS (${threadHeld("r.thread_id", "r.run_id", "$1")})
        ORDER BY r.created_at, r.seq LIMIT ${CLAIM_CANDIDATES}`,
      [now],
    );
    if (candidates.length === 0) return null;
    return transaction(this.pool, async (client) => {
      const tried = new Set<string>();
      for (const candidate of candidates) {
        if (tried.has(candidate.thread_id)) continue;
        tried.add(candidate.thread_id);
        // The thread is locked first, in a statement of its own: the run's check below then sees every
        // claim of the thread committed before the lock (one statement would check its older snapshot).
        const [locked] = await query(client, `SELECT 1 FROM ${this.t.threads} WHERE thread_id = $1 FOR NO KEY UPDATE SKIP LOCKED`, [
          candidate.thread_id,
        ]);
        if (!locked) continue;
        // The run and its thread's busy mark in one statement (the thread is ours until COMMIT).
        const [claimed] = await query<Run & { attempt: number; internal: RunInternal }>(
          client,
          `WITH claimed AS (
             UPDATE ${this.t.runs} r SET status = 'running', updated_at = $3, lease_owner = $4, lease_expires_at = $5,
                    attempt = r.attempt + 1
              WHERE r.run_id = (
                      SELECT p.run_id FROM ${this.t.runs} p
                       WHERE p.thread_id = $1 AND p.status = 'pending' AND p.created_at <= $2
                       ORDER BY p.created_at, p.seq LIMIT 1)
                AND r.status = 'pending'
                AND NOT EXISTS (${threadHeld("$1", "r.run_id", "$2")})
            RETURNING ${prefixed("r")}, r.attempt, r.internal),
           busy AS (
             UPDATE ${this.t.threads} SET status = 'busy', updated_at = $3
              WHERE thread_id = $1 AND EXISTS (SELECT 1 FROM claimed))
           SELECT * FROM claimed`,
          [candidate.thread_id, now, claimedAt, options.owner, leaseUntil],
        );
        if (!claimed) continue;
        const { attempt, internal, ...run } = this.seal.row("runs", claimed);
        // Another candidate (of another thread, or queued behind this run) may still be claimable.
        return { run: run as Run, attempt, internal: internal ?? {}, more: candidates.length > 1 };
      }
      return null;
    });
  }

  async renewLeases(runIds: string[], owner: string, leaseMs: number): Promise<number> {
    if (!runIds.length) return 0;
    return queryCount(
      this.pool,
      `UPDATE ${this.t.runs} SET lease_expires_at = $3
        WHERE run_id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running'`,
      [[...new Set(runIds)], owner, addMs(nowIso(), leaseMs)],
    );
  }

  async listExpiredLeases(now: string, limit: number): Promise<Run[]> {
    return this.runs(
      query<Run>(
        this.pool,
        `SELECT ${RUN_COLUMNS} FROM ${this.t.runs}
          WHERE status = 'running' AND lease_expires_at < $1
          ORDER BY lease_expires_at, seq LIMIT $2`,
        [now, Math.max(0, Math.floor(limit))],
      ),
    );
  }

  async listLeases(limit: number): Promise<RunLease[]> {
    const rows = await this.runs(
      query<Run & { lease_owner: string; lease_expires_at: string; attempt: number }>(
        this.pool,
        `SELECT ${RUN_COLUMNS}, lease_owner, lease_expires_at, attempt FROM ${this.t.runs}
          WHERE status = 'running' AND lease_expires_at IS NOT NULL
          ORDER BY lease_expires_at, seq LIMIT $1`,
        [Math.max(0, Math.floor(limit))],
      ),
    );
    return rows.map(({ lease_owner, lease_expires_at, attempt, ...run }) => ({
      run: run as Run,
      owner: lease_owner,
      expires_at: lease_expires_at,
      attempt,
    }));
  }

  /** One guarded UPDATE: the row lock makes racing callers (any process) take turns; one changes the row. */
  async requeue(runId: string, guard: RequeueGuard, options?: { handBack?: boolean }): Promise<ClaimedRun | null> {
    if (guard.expiredBefore === undefined && guard.owner === undefined) return null;
    const [row] = await query<Run & { attempt: number }>(
      this.pool,
      `UPDATE ${this.t.runs} SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = $2,
          metadata = metadata || jsonb_build_object('run_attempt', attempt + 1),
          internal = CASE WHEN $5::boolean
            THEN internal || jsonb_build_object('handBacks', COALESCE((internal ->> 'handBacks')::int, 0) + 1) ELSE internal END
        WHERE run_id = $1 AND status = 'running' AND lease_expires_at IS NOT NULL
          AND ($3::timestamptz IS NULL OR lease_expires_at < $3::timestamptz) AND ($4::text IS NULL OR lease_owner = $4::text)
        RETURNING ${RUN_COLUMNS}, attempt`,
      [runId, nowIso(), guard.expiredBefore ?? null, guard.owner ?? null, options?.handBack === true],
    );
    if (!row) return null;
    const { attempt, ...run } = this.seal.row("runs", row);
    return { run: run as Run, attempt };
  }

  async delete(runId: string, options?: { checkpoints?: boolean }): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      const [run] = await query<{ thread_id: string }>(client, `SELECT thread_id FROM ${this.t.runs} WHERE run_id = $1`, [runId]);
      if (!run) return false;
      await deleteRunsWhere(client, this.t, `run_id = $1`, [runId]);
      if (options?.checkpoints) {
        for (const sql of this.checkpoints.deleteRun)
          await query(client, sql, sql.includes("$2") ? [run.thread_id, runId] : [run.thread_id]);
      }
      return true;
    });
  }

  async getError(runId: string): Promise<RunError | null> {
    const [row] = await query<{ error: RunError | null }>(this.pool, `SELECT error FROM ${this.t.runs} WHERE run_id = $1`, [runId]);
    return (this.seal.row("runs", row)?.error as RunError | null | undefined) ?? null;
  }

  /** Counted on the partial index of active runs (`runs_active_idx`, an index-only scan). */
  async countPending(): Promise<number> {
    const [row] = await query<{ pending: string }>(this.pool, `SELECT count(*) AS pending FROM ${this.t.runs} WHERE status = 'pending'`);
    return Number(row?.pending ?? 0);
  }

  async getInternal(runId: string): Promise<RunInternal | null> {
    const [row] = await query<{ internal: RunInternal }>(this.pool, `SELECT internal FROM ${this.t.runs} WHERE run_id = $1`, [runId]);
    return row ? this.seal.row("runs", row).internal : null;
  }

  /** Atomic first-write-wins: one INSERT ... WHERE EXISTS(run) ON CONFLICT DO NOTHING. */
  async recordResult(runId: string, result: RunResult): Promise<void> {
    const json = this.seal.json("run_results", "result", result); // throws WireSerializationError before any query
    try {
      await query(
        this.pool,
        `INSERT INTO ${this.t.runResults} (run_id, ${RESULT_COLUMNS}, created_at)
         SELECT $1, ${resultValues("$2")}, $3 WHERE EXISTS (SELECT 1 FROM ${this.t.runs} WHERE run_id = $1)
         ON CONFLICT (run_id) DO NOTHING`,
        [runId, json, nowIso()],
      );
    } catch (error) {
      // The run was deleted between the EXISTS check and the foreign-key check: a write to a deleted run.
      if (pgCode(error) !== FOREIGN_KEY_VIOLATION) throw error;
    }
  }

  async getResult(runId: string): Promise<RunResult | null> {
    const [row] = await query<{ result: RunResult }>(
      this.pool,
      `SELECT ${storedResult()} AS result FROM ${this.t.runResults} WHERE run_id = $1`,
      [runId],
    );
    return row ? this.seal.row("run_results", row).result : null;
  }

  async searchTaskRoots(q: { assistant_id: string; thread_id?: string; limit?: number; offset?: number }): Promise<Run[]> {
    const page = [Math.max(0, Math.floor(q.limit ?? 10)), Math.max(0, Math.floor(q.offset ?? 0))];
    return this.runs(
      q.thread_id === undefined
        ? query<Run>(this.pool, this.tasks.roots, [q.assistant_id, ...page])
        : query<Run>(this.pool, this.tasks.rootsOfThread, [q.assistant_id, ...page, q.thread_id]),
    );
  }

  async getTask(taskId: string): Promise<TaskRuns | null> {
    const [row] = await query(this.pool, this.tasks.task, [taskId, encodeString(taskId)]);
    if (!row) return null;
    const run: Record<string, unknown> = {};
    const latest: Record<string, unknown> = {};
    for (const column of RUN_COLUMNS.split(", ")) {
      run[column] = row[column];
      latest[column] = row[`latest_${column}`];
    }
    return {
      run: this.seal.row("runs", run) as unknown as Run,
      internal: (this.seal.open("runs", "internal", row.internal) as RunInternal | null) ?? {},
      latest: latest.run_id ? (this.seal.row("runs", latest) as unknown as Run) : null,
    };
  }

  async latestContinuation(taskId: string): Promise<Run | null> {
    // task_id holds the taskId as stored in the jsonb (NUL-encoded): compare in that form.
    const [run] = await this.runs(query<Run>(this.pool, this.tasks.latestContinuation, [encodeString(taskId)]));
    return run ?? null;
  }

  async listContinuations(taskId: string, options?: { limit?: number }): Promise<Run[]> {
    const limit = Math.max(0, Math.floor(options?.limit ?? 100));
    return this.runs(query<Run>(this.pool, this.tasks.listContinuations, [encodeString(taskId), limit]));
  }

  /** Rows of the runs table with their sealed columns opened. */
  private async runs<R>(rows: Promise<R[]>): Promise<R[]> {
    return this.seal.rows("runs", await rows);
  }
}
