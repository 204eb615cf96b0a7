import {
  ACTIVE_RUN_STATUSES,
  addMs,
  claimOnCreate,
  ConflictError,
  ERASED_DELIVERY_STATUSES,
  InvalidInputError,
  NotFoundError,
  nowIso,
  RUN_DEPENDENTS,
  stringifyWire,
  ThreadExistsError,
  type ClaimedRun,
  type NewRun,
  type NewThread,
  type RunCreateOptions,
  type Run,
  type RunDependent,
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
  type ThreadStatus,
} from "@agent-server/core";
import type { CheckpointTables } from "./checkpointer.js";
import { intOr, isUniqueViolation, returningRow, Statements, type Db } from "./db.js";
import type { GroupCommit } from "./group-commit.js";
import { ACTIVE_RUNS } from "./migrations.js";
import { RunRows, type RunRow } from "./run-rows.js";
import { COLUMNS, LATEST_CONTINUATION_SQL, LIST_CONTINUATIONS_SQL, TASK_ROOTS_OF_THREAD_SQL, TASK_ROOTS_SQL, TASK_SQL } from "./run-sql.js";
import { INSERT_RESULT_GUARDED_SQL, SETTLE_THREAD_SQL, threadUpdateRow } from "./run-settle-sql.js";
import type { TableCodecs } from "./sealing.js";
import { insertNewThreadSql, newThreadRow, type NewThreadRow } from "./thread-rows.js";

export { LATEST_CONTINUATION_SQL, LIST_CONTINUATIONS_SQL, TASK_ROOTS_OF_THREAD_SQL, TASK_ROOTS_SQL } from "./run-sql.js";

/**
 * The oldest `limit` eligible pending runs (partial index runs_active), skipping threads that have a
 * running run or one still held under a live lease (index runs_thread_status). Parameter: @now.
 */
const claimableSql = (limit: number) => `SELECT r.run_id FROM runs r
  WHERE r.status = 'pending' AND r.${ACTIVE_RUNS} AND r.created_at <= @now
    AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.thread_id = r.thread_id AND x.run_id <> r.run_id
                      AND (x.status = 'running' OR (x.lease_owner IS NOT NULL AND x.lease_expires_at > @now)))
  ORDER BY r.created_at, r.seq LIMIT ${limit}`;

/** Where each of a run's dependents (core's run cascade) lives; `runs` selects the erased run ids. */
const DEPENDENT_SQL: Record<RunDependent, (runs: string) => string[]> = {
  result: () => [], // ON DELETE CASCADE from runs
  pushConfigs: () => [], // ON DELETE CASCADE from runs
  events: (runs) => [`DELETE FROM events WHERE run_id IN (${runs})`],
  // `+status`: the planner must take deliveries_run, not walk every finished delivery by status.
  deliveries: (runs) => [
    `DELETE FROM deliveries WHERE run_id IN (${runs}) AND +status IN (${ERASED_DELIVERY_STATUSES.map((status) => `'${status}'`).join(", ")})`,
  ],
};

type RunScope = "run_id" | "thread_id";

/** The statements erasing the runs whose `column` is the parameter, dependents first (exported for the query-plan test). */
export function eraseRunsSql(column: RunScope): string[] {
  const runs = `SELECT run_id FROM runs WHERE ${column} = ?`;
  return [...RUN_DEPENDENTS.flatMap((dependent) => DEPENDENT_SQL[dependent](runs)), `DELETE FROM runs WHERE ${column} = ?`];
}

/**
 * Erases the runs whose `column` is `id` (one run, or a thread's) with their dependents, in
 * the caller's transaction; returns how many runs went.
 */
export function eraseRuns(s: Statements, column: RunScope, id: string): number {
  let changes = 0;
  for (const sql of eraseRunsSql(column)) changes = s.get(sql).run(id).changes;
  return changes;
}

export class SqliteRunRepo implements RunRepo {
  private readonly s: Statements;
  private readonly byId;
  private readonly threadExists;
  private readonly insertRow;
  private readonly nextPending;
  private readonly claim;
  private readonly markBusy;
  /** `create` with a claim: the insert and, claimed, the thread's `busy` (a write of the group commit). */
  private readonly insertClaimed;
  /** `createWithThread`: the thread's insert and the run's (`insertRow`) (a write of the group commit). */
  private readonly insertThread;
  private readonly insertWithThread;
  private readonly insertResult;
  private readonly selectResult;
  private readonly selectInternal;
  private readonly selectError;

  private readonly rows: RunRows;
  private readonly toRun: RunRows["toRun"];

  constructor(
    private readonly db: Db,
    private readonly checkpoints: CheckpointTables,
    private readonly codecs: TableCodecs,
    /** Admissions, claims and settlements share commits with the turn's other writes (group-commit.ts). */
    private readonly commits: GroupCommit,
  ) {
    this.rows = new RunRows(codecs);
    this.toRun = (row) => this.rows.toRun(row);
    this.s = new Statements(db);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM runs WHERE run_id = ?`);
    this.threadExists = db.prepare("SELECT 1 FROM threads WHERE thread_id = ?");
    // One statement: SQLite takes its write lock before the statement reads anything, so the thread's
    // existence and (with @reject) the active-run check hold for the insert, across connections too.
    // With @claim (create's `claim`) the row is written claimed, as `this.claim` writes it — running,
    // leased to @owner until @until, attempt 1 — unless another run of the thread is pending or running or
    // holds a live lease (claimableSql's eligibility, and the runs queued before it): then as asked.
    this.insertRow = db.prepare(
      `INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, cancel_reason,
                         internal, error, attempt, lease_owner, lease_expires_at)
       SELECT @run_id, @thread_id, @assistant_id, @created_at, @updated_at, CASE WHEN c.claimed THEN 'running' ELSE @status END,
              @metadata, @kwargs, @multitask_strategy, @cancel_reason, @internal, @error,
              c.claimed, CASE WHEN c.claimed THEN @owner END, CASE WHEN c.claimed THEN @until END
         FROM (SELECT @claim = 1 AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.thread_id = @thread_id
                   AND (x.status IN ('pending', 'running') OR (x.lease_owner IS NOT NULL AND x.lease_expires_at > @now))) AS claimed) c
        WHERE EXISTS (SELECT 1 FROM threads WHERE thread_id = @thread_id)
          AND (@reject = 0 OR NOT EXISTS (SELECT 1 FROM runs WHERE thread_id = @thread_id AND status IN ('pending', 'running')))
       RETURNING status, attempt`,
    );
    // Two: the claim also tells whether another run is waiting (ClaimedRun.more).
    this.nextPending = db.prepare(claimableSql(2)).pluck();
    // The pick and the claim in one statement (run under the claim's write lock).
    this.claim = db.prepare(
      `UPDATE runs SET status = 'running', lease_owner = @owner, lease_expires_at = @until, attempt = attempt + 1, updated_at = @at
       WHERE run_id = (${claimableSql(1)}) RETURNING ${COLUMNS}, internal`,
    );
    // A claim (claimNext's, or create's) marks the run's thread busy in the same transaction.
    this.markBusy = db.prepare("UPDATE threads SET status = 'busy', updated_at = ? WHERE thread_id = ?");
    this.insertClaimed = (params: { thread_id: string; now: string }) => {
      const created = returningRow<{ status: RunStatus; attempt: number }>(this.insertRow, params);
      if (created?.status === "running") this.markBusy.run(params.now, params.thread_id);
      return created;
    };
    this.insertThread = db.prepare(insertNewThreadSql("thread_id"));
    // A throw leaves the thread written: the group commit then rolls the whole batch back.
    this.insertWithThread = (thread: NewThreadRow, params: { run_id: string; thread_id: string; now: string }) => {
      if (!returningRow(this.insertThread, thread)) throw new ThreadExistsError(`thread ${thread.thread_id} already exists`);
      const created = returningRow<{ status: RunStatus; attempt: number }>(this.insertRow, params);
      if (!created) throw new Error(`run ${params.run_id} was not inserted on its new thread`);
      // Written busy exactly when the run is claimed (both follow the claim); kept so if they ever differ.
      if (created.status === "running" && thread.status !== "busy") this.markBusy.run(params.now, params.thread_id);
      return created;
    };
    // Atomic first-write-wins; a no-op for an unknown run (the SELECT yields no row).
    this.insertResult = db.prepare(
      `INSERT INTO run_results (run_id, result, created_at)
       SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = ?)
       ON CONFLICT (run_id) DO NOTHING`,
    );
    this.selectResult = db.prepare("SELECT result FROM run_results WHERE run_id = ?");
    this.selectInternal = db.prepare("SELECT internal FROM runs WHERE run_id = ?");
    this.selectError = db.prepare("SELECT error FROM runs WHERE run_id = ?");
  }

  async create(input: NewRun, options?: RunCreateOptions): Promise<Run> {
    const { row, params, claim } = this.newRow(input, options);
    let inserted: { status: RunStatus; attempt: number } | undefined;
    try {
      // Claimed: the insert and the thread's `busy` together (as claimNext's claim); otherwise the insert.
      inserted = await this.commits.write(() =>
        claim ? this.insertClaimed(params) : returningRow<{ status: RunStatus; attempt: number }>(this.insertRow, params),
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`run ${input.run_id} already exists`);
      throw err;
    }
    // Nothing inserted: only now is it worth a read to say why.
    if (!inserted) {
      if (!this.threadExists.get(input.thread_id)) throw new NotFoundError(`thread ${input.thread_id} not found`);
      throw new ConflictError(`thread ${input.thread_id} already has an active run`);
    }
    const { error: _error, ...created } = row;
    return this.toRun({ ...created, status: inserted.status, attempt: inserted.attempt });
  }

  /**
   * One transaction: the thread (already `busy` when the run will be claimed: on a new thread a claim is
   * always granted), then the run as `create` inserts it. A taken thread id rolls back before the run is
   * tried; a taken run id rolls the thread back.
   */
  async createWithThread(thread: NewThread, input: NewRun, options?: RunCreateOptions): Promise<Run> {
    if (input.thread_id !== thread.thread_id) throw new InvalidInputError(`run ${input.run_id} is not of thread ${thread.thread_id}`);
    const { row, params, claim } = this.newRow(input, options);
    const threadRow = newThreadRow({ ...thread, ...(claim ? { status: "busy" as const } : {}) }, this.codecs.threads);
    let inserted: { status: RunStatus; attempt: number };
    try {
      inserted = await this.commits.write(() => this.insertWithThread(threadRow, params));
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`run ${input.run_id} already exists`);
      throw err;
    }
    const { error: _error, ...created } = row;
    return this.toRun({ ...created, status: inserted.status, attempt: inserted.attempt });
  }

  /** The run's row and the insert's parameters (every value serialized, and sealed, before anything is written). */
  private newRow(input: NewRun, options: RunCreateOptions | undefined) {
    const now = nowIso();
    const row = {
      run_id: input.run_id,
      thread_id: input.thread_id,
      assistant_id: input.assistant_id,
      created_at: input.created_at ?? now,
      updated_at: now,
      status: input.status ?? "pending",
      metadata: this.rows.text("metadata", input.metadata ?? {}),
      kwargs: this.rows.text("kwargs", input.kwargs ?? {}),
      multitask_strategy: input.multitask_strategy ?? "reject",
      cancel_reason: input.cancel_reason ?? null,
      internal: this.rows.internalText(options?.internal),
      error: this.rows.errorText(options?.error),
    };
    // `claim` counts only for a pending run due now; otherwise it is ignored.
    const claim = claimOnCreate(input, options, now);
    const params = {
      ...row,
      reject: options?.rejectIfThreadActive ? 1 : 0,
      claim: claim ? 1 : 0,
      owner: claim?.owner ?? null,
      until: claim ? addMs(now, claim.leaseMs) : null,
      now,
    };
    return { row, params, claim };
  }

  async get(runId: string, threadId?: string): Promise<Run | null> {
    const row = this.byId.get(runId) as RunRow | undefined;
    if (!row || (threadId !== undefined && row.thread_id !== threadId)) return null;
    return this.toRun(row);
  }

  async search(query: RunSearch): Promise<Run[]> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (query.thread_id !== undefined) {
      clauses.push("thread_id = ?");
      params.push(query.thread_id);
    }
    if (query.status !== undefined) {
      const statuses = Array.isArray(query.status) ? query.status : [query.status];
      clauses.push("status IN (SELECT value FROM json_each(?))");
      params.push(JSON.stringify(statuses));
      // Pending and running runs only (cancelling by status): the partial index of active runs serves it.
      if (statuses.every((status) => ACTIVE_RUN_STATUSES.includes(status))) clauses.push(ACTIVE_RUNS);
    }
    if (query.metadata !== undefined) {
      // O(runs the other predicates leave): containment is evaluated per row by the registered function.
      clauses.push("as_json_contains(metadata, ?, 'runs.metadata')");
      params.push(stringifyWire(query.metadata));
    }
    const where = clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
    const sql = `SELECT ${COLUMNS} FROM runs ${where} ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`;
    const rows = this.s.get(sql).all(...params, intOr(query.limit, 10), intOr(query.offset, 0)) as RunRow[];
    return rows.map(this.toRun);
  }

  async transition(
    runId: string,
    to: RunStatus,
    options?: { from?: readonly RunStatus[]; owner?: string; error?: RunError; cancelReason?: string },
  ): Promise<Run | null> {
    const row = this.transitionNow(runId, to, options);
    return row ? this.toRun(row) : null;
  }

  /** The result (guarded by the lease), the terminal write (clearing the lease with it) and the thread in one transaction. */
  async settle(runId: string, to: RunStatus, options: RunSettlement): Promise<SettledRun | null> {
    // Serialized before the transaction: a value that is not JSON writes nothing.
    const result = options.result ? this.rows.resultText(options.result) : null;
    const thread = options.thread ? threadUpdateRow(options.thread, this.codecs.threads) : null;
    const owner = options.owner ?? null;
    const release = options.releaseLease === true && owner !== null;
    const write = (): SettledRun | null => {
      options.after?.check();
      if (result !== null) this.s.get(INSERT_RESULT_GUARDED_SQL).run(runId, result, nowIso(), runId, owner, owner);
      const settled = this.transitionNow(runId, to, options, release, true);
      if (!settled) return null;
      const { push_configs, ...row } = settled;
      const run = this.toRun(row);
      const pushConfigs = push_configs === 1;
      if (!thread) return { run, pushConfigs };
      const updated = returningRow<{ status: ThreadStatus; interrupts: string }>(this.s.get(SETTLE_THREAD_SQL), {
        ...thread,
        thread_id: run.thread_id,
        updated_at: nowIso(),
      });
      if (!updated) return { run, thread: null, pushConfigs };
      return {
        run,
        thread: { status: updated.status, interrupts: this.codecs.threads.value("interrupts", updated.interrupts, {}) },
        pushConfigs,
      };
    };
    return this.commits.write(write);
  }

  /**
   * The guarded terminal UPDATE, as its RETURNING row. With `releaseLease`, the owner's lease is cleared by
   * the same write (the guard holds it is the owner's); with `withPush`, the row says (`push_configs`, 0/1)
   * whether the run's task — its internal taskId, else the run — has push configs.
   */
  private transitionNow(
    runId: string,
    to: RunStatus,
    options?: { from?: readonly RunStatus[]; owner?: string; error?: RunError; cancelReason?: string },
    releaseLease = false,
    withPush = false,
  ): (RunRow & { push_configs?: number }) | undefined {
    // error = COALESCE(new, old): one statement writes the status and the error together, or neither; a
    // cancel's reason likewise (no statement of its own).
    const lease = releaseLease ? ", lease_owner = NULL, lease_expires_at = NULL" : "";
    const push = withPush
      ? ", EXISTS (SELECT 1 FROM push_configs p WHERE p.run_id = COALESCE(runs.task_id, runs.run_id)) AS push_configs"
      : "";
    return returningRow<RunRow & { push_configs?: number }>(
      this.s.get(
        `UPDATE runs SET status = ?, updated_at = ?, error = COALESCE(?, error), cancel_reason = COALESCE(?, cancel_reason)${lease}
         WHERE run_id = ? AND (? IS NULL OR status IN (SELECT value FROM json_each(?))) AND (? IS NULL OR lease_owner = ?)
         RETURNING ${COLUMNS}${push}`,
      ),
      to,
      nowIso(),
      this.rows.errorText(options?.error),
      options?.cancelReason ?? null,
      runId,
      ...twice(options?.from ? JSON.stringify(options.from) : null),
      ...twice(options?.owner ?? null),
    );
  }

  async getLease(runId: string): Promise<{ owner: string; expires_at: string } | null> {
    const row = this.s.get(`SELECT lease_owner, lease_expires_at FROM runs WHERE run_id = ? AND lease_owner IS NOT NULL`).get(runId) as
      { lease_owner: string; lease_expires_at: string } | undefined;
    return row ? { owner: row.lease_owner, expires_at: row.lease_expires_at } : null;
  }

  async releaseLease(runId: string, owner: string): Promise<boolean> {
    return (
      this.s
        .get(`UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL WHERE run_id = ? AND lease_owner = ? AND status <> 'running'`)
        .run(runId, owner).changes > 0
    );
  }

  async claimNext(options: { owner: string; leaseMs: number; now?: string }): Promise<ClaimedRun | null> {
    const now = options.now ?? nowIso();
    // Most calls find nothing (a worker pool asks again after each claim and each run's end): a plain
    // read answers those without taking the write lock, and tells whether a second run is waiting.
    const waiting = this.nextPending.all({ now }).length;
    if (waiting === 0) return null;
    // The commit's BEGIN IMMEDIATE takes the write lock before the claim reads, so two connections (or
    // processes) on the same file serialize here and never claim the same run.
    const row = await this.commits.write(() => {
      const claimedAt = nowIso();
      const row = returningRow<RunRow & { internal: string | null }>(this.claim, {
        now,
        owner: options.owner,
        until: addMs(now, options.leaseMs),
        at: claimedAt,
      });
      if (row) this.markBusy.run(claimedAt, row.thread_id);
      return row;
    });
    return row ? { run: this.toRun(row), attempt: row.attempt, internal: this.rows.internalOf(row.internal), more: waiting > 1 } : null;
  }

  async renewLeases(runIds: string[], owner: string, leaseMs: number): Promise<number> {
    if (runIds.length === 0) return 0;
    const now = nowIso();
    return this.s
      .get(
        // The lease now runs until now + leaseMs (as claimNext sets it), whatever it was before.
        `UPDATE runs SET lease_expires_at = ?
         WHERE run_id IN (SELECT value FROM json_each(?)) AND lease_owner = ? AND status = 'running'`,
      )
      .run(addMs(now, leaseMs), JSON.stringify(runIds), owner).changes;
  }

  async listExpiredLeases(now: string, limit: number): Promise<Run[]> {
    const rows = this.s
      .get(
        // O(running runs): the partial index of active runs holds only those, sorted here by lease.
        `SELECT ${COLUMNS} FROM runs WHERE status = 'running' AND ${ACTIVE_RUNS} AND lease_expires_at < ?
         ORDER BY lease_expires_at, seq LIMIT ?`,
      )
      .all(now, intOr(limit, 10)) as RunRow[];
    return rows.map(this.toRun);
  }

  async listLeases(limit: number): Promise<RunLease[]> {
    const rows = this.s
      .get(
        `SELECT ${COLUMNS}, lease_owner, lease_expires_at FROM runs
         WHERE status = 'running' AND ${ACTIVE_RUNS} AND lease_expires_at IS NOT NULL
         ORDER BY lease_expires_at, seq LIMIT ?`,
      )
      .all(intOr(limit, 10)) as Array<RunRow & { lease_owner: string; lease_expires_at: string }>;
    return rows.map(({ lease_owner, lease_expires_at, ...row }) => ({
      run: this.toRun(row),
      owner: lease_owner,
      expires_at: lease_expires_at,
      attempt: row.attempt,
    }));
  }

  /** One guarded UPDATE: SQLite runs it under its write lock, so of racing callers one changes the row. */
  async requeue(runId: string, guard: RequeueGuard, options?: { handBack?: boolean }): Promise<ClaimedRun | null> {
    if (guard.expiredBefore === undefined && guard.owner === undefined) return null;
    const row = returningRow<RunRow>(
      this.s.get(
        `UPDATE runs SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = ?,
           metadata = json_set(metadata, '$.run_attempt', attempt + 1),
           internal = CASE WHEN ? THEN json_set(COALESCE(internal, '{}'), '$.handBacks', COALESCE(json_extract(internal, '$.handBacks'), 0) + 1)
                      ELSE internal END
         WHERE run_id = ? AND status = 'running' AND lease_expires_at IS NOT NULL
           AND (? IS NULL OR lease_expires_at < ?) AND (? IS NULL OR lease_owner = ?)
         RETURNING ${COLUMNS}`,
      ),
      nowIso(),
      options?.handBack ? 1 : 0,
      runId,
      guard.expiredBefore ?? null,
      guard.expiredBefore ?? null,
      guard.owner ?? null,
      guard.owner ?? null,
    );
    return row ? { run: this.toRun(row), attempt: row.attempt } : null;
  }

  async delete(runId: string, options?: { checkpoints?: boolean }): Promise<boolean> {
    const tx = this.db.transaction(() => {
      const row = this.byId.get(runId) as RunRow | undefined;
      if (!row) return false;
      if (options?.checkpoints) this.checkpoints.deleteRun(row.thread_id, runId);
      return eraseRuns(this.s, "run_id", runId) > 0;
    });
    return tx.immediate();
  }

  async getError(runId: string): Promise<RunError | null> {
    const row = this.selectError.get(runId) as { error: string | null } | undefined;
    return this.rows.errorOf(row?.error ?? null);
  }

  /** Counted on the partial index of active runs (`runs_active`). */
  async countPending(): Promise<number> {
    const row = this.s.get(`SELECT count(*) AS pending FROM runs WHERE status = 'pending' AND ${ACTIVE_RUNS}`).get() as { pending: number };
    return row.pending;
  }

  async getInternal(runId: string): Promise<RunInternal | null> {
    const row = this.selectInternal.get(runId) as { internal: string | null } | undefined;
    return row ? this.rows.internalOf(row.internal) : null;
  }

  async recordResult(runId: string, result: RunResult): Promise<void> {
    // Serialize first: a WireSerializationError leaves the database untouched.
    const text = this.rows.resultText(result);
    this.insertResult.run(runId, text, nowIso(), runId);
  }

  async getResult(runId: string): Promise<RunResult | null> {
    const row = this.selectResult.get(runId) as { result: string } | undefined;
    return this.rows.resultOf(row?.result ?? null);
  }

  async searchTaskRoots(query: { assistant_id: string; thread_id?: string; limit?: number; offset?: number }): Promise<Run[]> {
    const page = [intOr(query.limit, 10), intOr(query.offset, 0)];
    const rows = (
      query.thread_id === undefined
        ? this.s.get(TASK_ROOTS_SQL).all(query.assistant_id, ...page)
        : this.s.get(TASK_ROOTS_OF_THREAD_SQL).all(query.assistant_id, query.thread_id, ...page)
    ) as RunRow[];
    return rows.map(this.toRun);
  }

  async getTask(taskId: string): Promise<TaskRuns | null> {
    const row = this.s.get(TASK_SQL).get(taskId) as Record<string, unknown> | undefined;
    if (!row) return null;
    const run: Record<string, unknown> = {};
    const latest: Record<string, unknown> = {};
    for (const column of COLUMNS.split(", ")) {
      run[column] = row[column];
      latest[column] = row[`latest_${column}`];
    }
    return {
      run: this.toRun(run as unknown as RunRow),
      internal: this.rows.internalOf(row.internal as string | null),
      latest: latest.run_id ? this.toRun(latest as unknown as RunRow) : null,
    };
  }

  async latestContinuation(taskId: string): Promise<Run | null> {
    const row = this.s.get(LATEST_CONTINUATION_SQL).get(taskId) as RunRow | undefined;
    return row ? this.toRun(row) : null;
  }

  async listContinuations(taskId: string, options?: { limit?: number }): Promise<Run[]> {
    const rows = this.s.get(LIST_CONTINUATIONS_SQL).all(taskId, intOr(options?.limit, 100)) as RunRow[];
    return rows.map(this.toRun);
  }
}

/** A parameter bound twice (`? IS NULL OR column = ?`). */
function twice<T>(value: T): [T, T] {
  return [value, value];
}
