import {
  ConflictError,
  nowIso,
  parseValuesRef,
  valuesFromCheckpoint,
  type ExpiredThread,
  type ThreadTtlStrategy,
  planThreadCopy,
  stringifyWire,
  toWireObject,
  type NewThread,
  type PruneStrategy,
  type Thread,
  type ThreadHeader,
  type ThreadPatch,
  type ThreadRepo,
  type ThreadSearch,
} from "@agent-server/core";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { CheckpointTables } from "./checkpointer.js";
import { intOr, parseJson, returningRow, sortDir, Statements, type Db } from "./db.js";
import { NOT_IDLE } from "./migrations.js";
import { RunRows } from "./run-rows.js";
import { eraseRuns } from "./runs.js";
import type { TableCodec, TableCodecs } from "./sealing.js";
import { insertNewThreadSql, newThreadRow, toThread, toThreadHeader, type ThreadRow } from "./thread-rows.js";

interface RunCopyRow {
  run_id: string;
  internal: string | null;
  result: string | null;
}

const COLUMNS = "thread_id, created_at, updated_at, metadata, config, status, state_values, values_ref, interrupts, error";
const HEADER_COLUMNS = "thread_id, created_at, updated_at, metadata, config, status, error";
const SORT_COLUMNS = new Set(["thread_id", "status", "created_at", "updated_at"]);

export class SqliteThreadRepo implements ThreadRepo {
  readonly storesValuesAt = true;
  private readonly s: Statements;
  private readonly byId;
  private readonly headerById;
  private readonly insertRow;
  private readonly updateRow;
  private readonly insertNew;
  private readonly updateColumns;
  private readonly keepValues;
  private readonly pendingValues;
  private readonly c: TableCodec<"threads">;
  private readonly runRows: RunRows;

  constructor(
    private readonly db: Db,
    private readonly checkpoints: CheckpointTables,
    private readonly checkpointer: BaseCheckpointSaver,
    codecs: TableCodecs,
  ) {
    this.c = codecs.threads;
    this.runRows = new RunRows(codecs);
    this.s = new Statements(db);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM threads WHERE thread_id = ?`);
    this.headerById = db.prepare(`SELECT ${HEADER_COLUMNS} FROM threads WHERE thread_id = ?`);
    // One statement for the usual case (a new id); an existing one is told apart by the missing row.
    this.insertNew = db.prepare(insertNewThreadSql(COLUMNS));
    // A patch without metadata needs nothing of the row it replaces: one statement, no read first.
    this.updateColumns = db.prepare(
      `UPDATE threads SET updated_at = @updated_at,
              config = CASE WHEN @set_config THEN @config ELSE config END,
              status = COALESCE(@status, status),
              state_values = CASE WHEN @set_values THEN @state_values ELSE state_values END,
              values_ref = CASE WHEN @set_values THEN @values_ref ELSE values_ref END,
              interrupts = COALESCE(@interrupts, interrupts),
              error = CASE WHEN @set_error THEN @error ELSE error END,
              ttl_strategy = CASE WHEN @set_ttl THEN @ttl_strategy ELSE ttl_strategy END,
              ttl_minutes = CASE WHEN @set_ttl THEN @ttl_minutes ELSE ttl_minutes END
        WHERE thread_id = @thread_id RETURNING ${COLUMNS}`,
    );
    this.insertRow = db.prepare(
      `INSERT INTO threads (${COLUMNS}) VALUES (@thread_id, @created_at, @updated_at, @metadata, @config, @status, @state_values, @values_ref, @interrupts, @error)`,
    );
    this.updateRow = db.prepare(
      `UPDATE threads SET updated_at = @updated_at, metadata = @metadata, config = @config, status = @status,
         state_values = @state_values, values_ref = @values_ref, interrupts = @interrupts, error = @error
       WHERE thread_id = @thread_id`,
    );
    // Only while the pointer read is still the thread's: a newer settlement's pointer wins.
    this.keepValues = db.prepare("UPDATE threads SET state_values = ?, values_ref = NULL WHERE thread_id = ? AND values_ref = ?");
    this.pendingValues = db.prepare("SELECT thread_id, values_ref FROM threads WHERE values_ref IS NOT NULL");
  }

  async create(input: NewThread, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Thread> {
    const inserted = returningRow<ThreadRow>(this.insertNew, newThreadRow(input, this.c));
    if (inserted) return this.toThread(inserted);
    const existing = this.byId.get(input.thread_id) as ThreadRow | undefined;
    // Deleted again between the two statements: as if it had never been there.
    if (!existing) return this.create(input, options);
    if (options?.ifExists === "do_nothing") return this.toThread(await this.withValues(existing));
    throw new ConflictError(`thread ${input.thread_id} already exists`);
  }

  private toThread(row: ThreadRow): Thread {
    return toThread(row, this.c);
  }

  async get(threadId: string): Promise<Thread | null> {
    const row = this.byId.get(threadId) as ThreadRow | undefined;
    return row ? this.toThread(await this.withValues(row)) : null;
  }

  /**
   * The row with its values in state_values: read from the checkpoint its pointer names (O(state)), then
   * kept in the row unless a newer pointer replaced it meanwhile.
   */
  private async withValues(row: ThreadRow): Promise<ThreadRow> {
    if (row.values_ref === null) return row;
    const ref = parseValuesRef(parseJson(row.values_ref, null));
    const values = ref ? await valuesFromCheckpoint(this.checkpointer, row.thread_id, ref) : null;
    const text = values === null ? null : this.c.text("state_values", values);
    this.keepValues.run(text, row.thread_id, row.values_ref);
    return { ...row, state_values: text, values_ref: null };
  }

  /**
   * Every pointer turned into values, so SQL can filter on them: a scan of the threads (O(threads), as the
   * values filter that follows) and a checkpoint read for each one holding a pointer.
   */
  private async keepAllValues(): Promise<void> {
    for (const row of this.pendingValues.all() as Pick<ThreadRow, "thread_id" | "values_ref">[]) {
      await this.withValues({ ...row, state_values: null } as ThreadRow);
    }
  }

  async getHeader(threadId: string): Promise<ThreadHeader | null> {
    const row = this.headerById.get(threadId) as Omit<ThreadRow, "state_values" | "interrupts"> | undefined;
    return row ? toThreadHeader(row, this.c) : null;
  }

  async update(threadId: string, patch: ThreadPatch): Promise<Thread | null> {
    // Serialize the patch before the transaction: a value that is not JSON changes nothing.
    const metadata = patch.metadata !== undefined ? toWireObject(patch.metadata) : undefined;
    const config = patch.config !== undefined ? this.c.text("config", patch.config) : undefined;
    const values = patch.values === undefined ? undefined : patch.values === null ? null : this.c.text("state_values", patch.values);
    const valuesRef = patch.values === undefined && patch.valuesAt !== undefined ? JSON.stringify(patch.valuesAt) : null;
    const setValues = values !== undefined || valuesRef !== null;
    const interrupts = patch.interrupts !== undefined ? this.c.text("interrupts", patch.interrupts) : undefined;
    const error = patch.error !== undefined ? this.c.text("error", patch.error) : undefined;
    const ttl = {
      set_ttl: patch.ttl !== undefined ? 1 : 0,
      ttl_strategy: patch.ttl?.strategy ?? null,
      ttl_minutes: patch.ttl?.minutes ?? null,
    };
    if (metadata === undefined) {
      const row = returningRow<ThreadRow>(this.updateColumns, {
        thread_id: threadId,
        updated_at: nowIso(),
        set_config: config !== undefined ? 1 : 0,
        config: config ?? null,
        status: patch.status ?? null,
        set_values: setValues ? 1 : 0,
        state_values: values ?? null,
        values_ref: valuesRef,
        interrupts: interrupts ?? null,
        set_error: error !== undefined ? 1 : 0,
        error: error ?? null,
        ...ttl,
      });
      return row ? this.toThread(await this.withValues(row)) : null;
    }
    const tx = this.db.transaction(() => {
      const current = this.byId.get(threadId) as ThreadRow | undefined;
      if (!current) return null;
      const next: ThreadRow = {
        ...current,
        updated_at: nowIso(),
        metadata: metadata ? this.c.text("metadata", { ...this.c.value("metadata", current.metadata, {}), ...metadata }) : current.metadata,
        config: config ?? current.config,
        status: patch.status ?? current.status,
        state_values: setValues ? (values ?? null) : current.state_values,
        values_ref: setValues ? valuesRef : current.values_ref,
        interrupts: interrupts ?? current.interrupts,
        error: error !== undefined ? error : current.error,
      };
      this.updateRow.run(next);
      if (ttl.set_ttl)
        this.s
          .get("UPDATE threads SET ttl_strategy = ?, ttl_minutes = ? WHERE thread_id = ?")
          .run(ttl.ttl_strategy, ttl.ttl_minutes, threadId);
      return next;
    });
    const row = tx.immediate();
    return row ? this.toThread(await this.withValues(row)) : null;
  }

  async delete(threadId: string): Promise<boolean> {
    return this.db.transaction(() => this.deleteInTx(threadId)).immediate();
  }

  /** Thread row, its runs as core's run cascade erases them, checkpoints and writes. */
  private deleteInTx(threadId: string): boolean {
    eraseRuns(this.s, "thread_id", threadId);
    const deleted = this.s.get("DELETE FROM threads WHERE thread_id = ?").run(threadId).changes > 0;
    this.checkpoints.deleteThread(threadId);
    return deleted;
  }

  async search(query: ThreadSearch): Promise<Thread[]> {
    if (query.values !== undefined) await this.keepAllValues();
    const { where, params } = buildWhere(query);
    const column = query.sort_by && SORT_COLUMNS.has(query.sort_by) ? query.sort_by : "created_at";
    const dir = sortDir(query.sort_order);
    const sql = `SELECT ${COLUMNS} FROM threads ${where} ORDER BY ${column} ${dir}, seq ${dir} LIMIT ? OFFSET ?`;
    const rows = this.s.get(sql).all(...params, intOr(query.limit, 10), intOr(query.offset, 0)) as ThreadRow[];
    const threads: Thread[] = [];
    for (const row of rows) threads.push(this.toThread(await this.withValues(row)));
    return threads;
  }

  async count(query: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order" | "ids">): Promise<number> {
    if (query.values !== undefined) await this.keepAllValues();
    const { where, params } = buildWhere(query);
    return (this.s.get(`SELECT COUNT(*) AS n FROM threads ${where}`).get(...params) as { n: number }).n;
  }

  async copy(sourceThreadId: string, newThreadId: string): Promise<Thread | null> {
    const tx = this.db.transaction(() => {
      const source = this.byId.get(sourceThreadId) as ThreadRow | undefined;
      if (!source) return null;
      if (this.byId.get(newThreadId)) throw new ConflictError(`thread ${newThreadId} already exists`);
      const now = nowIso();
      const row: ThreadRow = { ...source, thread_id: newThreadId, created_at: now, updated_at: now };
      this.insertRow.run(row);
      // The copy keeps the source's TTL; its clock starts at the copy.
      this.s
        .get(
          "UPDATE threads SET (ttl_strategy, ttl_minutes) = (SELECT ttl_strategy, ttl_minutes FROM threads WHERE thread_id = ?) WHERE thread_id = ?",
        )
        .run(sourceThreadId, newThreadId);

      // Core's copy plan; task_root / task_id are generated from the remapped internals.
      const sources = this.s
        .get(
          `SELECT r.run_id, r.internal, rr.result FROM runs r LEFT JOIN run_results rr ON rr.run_id = r.run_id
           WHERE r.thread_id = ? ORDER BY r.seq`,
        )
        .all(sourceThreadId) as RunCopyRow[];
      const plan = planThreadCopy(
        sourceThreadId,
        newThreadId,
        sources.map((r) => ({ run_id: r.run_id, internal: this.runRows.internalOf(r.internal), result: this.runRows.resultOf(r.result) })),
      );
      // A copied run is the source's row under the plan's id, thread, internal and lease.
      const copyRun = this.s.get(
        `INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs,
           multitask_strategy, cancel_reason, internal, attempt, lease_owner, lease_expires_at, error)
         SELECT @run_id, @thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs,
           multitask_strategy, cancel_reason, @internal, attempt, @lease_owner, @lease_expires_at, error
         FROM runs WHERE run_id = @source_run_id`,
      );
      const copyResult = this.s.get(
        "INSERT INTO run_results (run_id, result, created_at) SELECT @run_id, @result, created_at FROM run_results WHERE run_id = @source_run_id",
      );
      for (const copy of plan) {
        const { source_run_id, run_id, thread_id, lease } = copy;
        const internal = this.runRows.internalText(copy.internal);
        copyRun.run({
          source_run_id,
          run_id,
          thread_id,
          internal,
          lease_owner: lease?.owner ?? null,
          lease_expires_at: lease?.until ?? null,
        });
        if (copy.result) copyResult.run({ source_run_id, run_id, result: this.runRows.resultText(copy.result) });
      }
      this.checkpoints.copyThread(sourceThreadId, newThreadId);
      return row;
    });
    const row = tx.immediate();
    return row ? this.toThread(await this.withValues(row)) : null;
  }

  /** The expiry index's range up to `now`, skipping threads with a pending or running run. */
  async listExpired(now: string, limit: number): Promise<ExpiredThread[]> {
    return this.s
      .get(
        `SELECT thread_id, ttl_strategy AS strategy FROM threads t
         WHERE expires_at IS NOT NULL AND expires_at <= ? AND ${IDLE}
         ORDER BY expires_at, seq LIMIT ?`,
      )
      .all(now, Math.max(0, Math.floor(limit))) as ExpiredThread[];
  }

  /** Checked and swept in one IMMEDIATE transaction: another connection's sweep of it waits, then finds nothing. */
  async sweep(threadId: string, now: string): Promise<ThreadTtlStrategy | null> {
    const tx = this.db.transaction((): ThreadTtlStrategy | null => {
      const row = this.s
        .get(
          `SELECT ttl_strategy AS strategy FROM threads t WHERE thread_id = ? AND expires_at IS NOT NULL AND expires_at <= ? AND ${IDLE}`,
        )
        .get(threadId, now) as { strategy: ThreadTtlStrategy } | undefined;
      if (!row) return null;
      if (row.strategy === "delete") this.deleteInTx(threadId);
      else {
        this.checkpoints.keepLatest(threadId);
        this.s.get("UPDATE threads SET updated_at = ? WHERE thread_id = ?").run(now, threadId);
      }
      return row.strategy;
    });
    return tx.immediate();
  }

  async prune(threadIds: string[], strategy: PruneStrategy): Promise<number> {
    const exists = this.s.get("SELECT 1 FROM threads WHERE thread_id = ?");
    const tx = this.db.transaction(() => {
      let pruned = 0;
      for (const threadId of new Set(threadIds)) {
        if (!exists.get(threadId)) continue;
        if (strategy === "delete") this.deleteInTx(threadId);
        else this.checkpoints.keepLatest(threadId);
        pruned++;
      }
      return pruned;
    });
    return tx.immediate();
  }
}

/** No run of thread `t` is pending or running (the runs' thread/status index). */
const IDLE = "NOT EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.thread_id AND r.status IN ('pending', 'running'))";

/**
 * ids and status use the primary key / index; metadata and values containment and the auth filter call
 * the registered JSON functions, so they scan the rows the other predicates leave (O(n) without them).
 */
function buildWhere(query: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order">) {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (query.ids !== undefined) {
    clauses.push("thread_id IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(query.ids));
  }
  if (query.status !== undefined) {
    clauses.push(query.status === "idle" ? "status = ?" : `status = ? AND ${NOT_IDLE}`);
    params.push(query.status);
  }
  if (query.metadata !== undefined) {
    clauses.push("as_json_contains(metadata, ?, 'threads.metadata')");
    params.push(stringifyWire(query.metadata));
  }
  if (query.values !== undefined) {
    clauses.push("as_json_contains(state_values, ?, 'threads.values')");
    params.push(stringifyWire(query.values));
  }
  if (query.filter !== undefined) {
    clauses.push("as_auth_match(metadata, ?, 'threads.metadata')");
    params.push(stringifyWire(query.filter));
  }
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", params };
}
