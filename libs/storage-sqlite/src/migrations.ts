import type { Db } from "./db.js";

/**
 * Additive schema migrations, applied in order on open. A migration is never edited once released:
 * a change is a new entry with the next version. Each one runs inside the opening transaction, and its
 * version is recorded in `schema_migrations`, so reopening applies only what is missing.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial_schema",
    sql: `
CREATE TABLE assistants (
  seq INTEGER PRIMARY KEY,
  assistant_id TEXT NOT NULL UNIQUE,
  graph_id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  config TEXT NOT NULL,
  context TEXT NOT NULL,
  metadata TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX assistants_created_at ON assistants (created_at, seq);
CREATE INDEX assistants_updated_at ON assistants (updated_at, seq);
CREATE INDEX assistants_graph_id ON assistants (graph_id, created_at);
CREATE INDEX assistants_name ON assistants (name);

CREATE TABLE assistant_versions (
  assistant_id TEXT NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  graph_id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  config TEXT NOT NULL,
  context TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (assistant_id, version)
);

CREATE TABLE threads (
  seq INTEGER PRIMARY KEY,
  thread_id TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL,
  state_values TEXT,
  interrupts TEXT NOT NULL,
  error TEXT
);
CREATE INDEX threads_created_at ON threads (created_at, seq);
CREATE INDEX threads_updated_at ON threads (updated_at, seq);
CREATE INDEX threads_status ON threads (status, created_at);

CREATE TABLE runs (
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  assistant_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,
  metadata TEXT NOT NULL,
  kwargs TEXT NOT NULL,
  multitask_strategy TEXT NOT NULL,
  internal TEXT,
  attempt INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at TEXT
);
CREATE INDEX runs_thread_created ON runs (thread_id, created_at, seq);
CREATE INDEX runs_thread_status ON runs (thread_id, status);
CREATE INDEX runs_created ON runs (created_at, seq);
CREATE INDEX runs_status_created ON runs (status, created_at, seq);
CREATE INDEX runs_pending ON runs (created_at, seq) WHERE status = 'pending';
CREATE INDEX runs_leases ON runs (lease_expires_at) WHERE status = 'running';
CREATE INDEX runs_assistant ON runs (assistant_id);

CREATE TABLE store_items (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  write_seq INTEGER NOT NULL,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX store_items_updated ON store_items (updated_at, write_seq);
CREATE INDEX store_items_write_seq ON store_items (write_seq);

CREATE TABLE crons (
  seq INTEGER PRIMARY KEY,
  cron_id TEXT NOT NULL UNIQUE,
  assistant_id TEXT NOT NULL,
  thread_id TEXT,
  schedule TEXT NOT NULL,
  payload TEXT NOT NULL,
  metadata TEXT NOT NULL,
  user_id TEXT,
  end_time TEXT,
  next_run_date TEXT,
  on_run_completed TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX crons_due ON crons (next_run_date) WHERE enabled = 1;
CREATE INDEX crons_created ON crons (created_at, seq);
CREATE INDEX crons_assistant ON crons (assistant_id);
CREATE INDEX crons_thread ON crons (thread_id);

CREATE TABLE deliveries (
  seq INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  url TEXT NOT NULL,
  headers TEXT NOT NULL,
  payload TEXT,
  run_id TEXT,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at, seq);
CREATE INDEX deliveries_finished ON deliveries (status, updated_at);

CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  event_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  data TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  UNIQUE (run_id, event_id)
);
CREATE INDEX events_expires ON events (expires_at);

-- The LangGraph SqliteSaver's own tables, exactly as its setup() creates them (CREATE IF NOT EXISTS on
-- both sides), so they exist from the first open and our SQL (copy, prune, rollback) can use them.
CREATE TABLE IF NOT EXISTS checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  type TEXT,
  checkpoint BLOB,
  metadata BLOB,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT,
  value BLOB,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
`,
  },
  {
    version: 2,
    name: "run_results",
    sql: `
CREATE TABLE run_results (
  run_id TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
  result TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`,
  },
  {
    version: 3,
    name: "checkpoints_by_run",
    sql: `
CREATE INDEX IF NOT EXISTS checkpoints_run_id ON checkpoints (
  thread_id,
  (CASE WHEN json_valid(CAST(metadata AS TEXT)) THEN json_extract(CAST(metadata AS TEXT), '$.run_id') END)
);
`,
  },
  {
    version: 4,
    name: "run_task_lineage",
    // A2A task lineage as generated columns derived from `internal`, so every writer (run create, thread
    // copy with its remapped taskId, an older process that knows nothing of these columns) keeps them
    // right and rows written before this migration are covered without a backfill. VIRTUAL: computed on
    // read, stored only in the indexes below. The partial indexes hold task roots / continuations only,
    // so `searchTaskRoots` and `latestContinuation` never touch unrelated runs (see runs.ts).
    sql: `
ALTER TABLE runs ADD COLUMN task_id TEXT GENERATED ALWAYS AS (
  CASE WHEN json_valid(internal) AND json_type(internal, '$.taskId') = 'text' THEN json_extract(internal, '$.taskId') END
) VIRTUAL;
ALTER TABLE runs ADD COLUMN task_root INTEGER GENERATED ALWAYS AS (
  CASE WHEN json_valid(internal) AND json_type(internal, '$.captureResult') = 'true'
         AND json_type(internal, '$.taskId') IS NOT 'text' THEN 1 ELSE 0 END
) VIRTUAL;
CREATE INDEX runs_task_roots ON runs (assistant_id, created_at, seq) WHERE task_root = 1;
CREATE INDEX runs_task_roots_thread ON runs (assistant_id, thread_id, created_at, seq) WHERE task_root = 1;
CREATE INDEX runs_task_continuations ON runs (task_id, created_at, seq) WHERE task_id IS NOT NULL;
`,
  },
  {
    version: 5,
    name: "push_configs",
    // A2A push notification configs; they go with their run (ON DELETE CASCADE, like run_results).
    sql: `
CREATE TABLE push_configs (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  config_id TEXT NOT NULL,
  url TEXT NOT NULL,
  token TEXT,
  authentication TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, config_id)
);
`,
  },
  // Erasing a run deletes its finished deliveries (core's run cascade) by run_id.
  { version: 6, name: "deliveries_by_run", sql: "CREATE INDEX deliveries_run ON deliveries (run_id);" },
  {
    version: 7,
    name: "thread_locks",
    // Storage.withThreadLock across connections and processes on one file (see thread-lock.ts): one row
    // per held lock, with a lease (ms since the epoch) that a dead holder's row outlives only briefly.
    sql: `
CREATE TABLE thread_locks (
  thread_id TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`,
  },
  {
    version: 8,
    name: "run_errors",
    // RunRepo.getError: the error a run failed with (JSON {error, message}), written with its terminal
    // status. A column of the run, so erasure takes it; NULL for runs that did not fail (and older rows).
    sql: "ALTER TABLE runs ADD COLUMN error TEXT;",
  },
  {
    version: 9,
    name: "event_counters",
    // The last event id of a stream whose events were deleted (expired, or deleteForRun): the next append
    // continues after it, so an id is never given to a different event of the same stream (a thread's
    // protocol stream outlives any one TTL). Written only when events are deleted.
    sql: `
CREATE TABLE event_counters (
  run_id TEXT PRIMARY KEY,
  last_id INTEGER NOT NULL
);
`,
  },
  {
    version: 10,
    name: "ttl",
    // TTL sweeps (core's rules/ttl.ts). A store item keeps its put's TTL (minutes, for refreshes) and its
    // expiry. A thread keeps its TTL; its expiry is generated from updated_at (every write of the thread
    // restarts its clock, with no statement of its own), as core's threadExpiresAt computes it. Both
    // expiries are indexed for the rows that have one, so a sweep reads an index range.
    sql: `
ALTER TABLE store_items ADD COLUMN ttl_minutes REAL;
ALTER TABLE store_items ADD COLUMN expires_at TEXT;
CREATE INDEX store_items_expires ON store_items (expires_at) WHERE expires_at IS NOT NULL;
ALTER TABLE threads ADD COLUMN ttl_strategy TEXT;
ALTER TABLE threads ADD COLUMN ttl_minutes REAL;
ALTER TABLE threads ADD COLUMN expires_at TEXT GENERATED ALWAYS AS (
  CASE WHEN ttl_minutes IS NOT NULL THEN strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, printf('%+.3f seconds', ttl_minutes * 60.0)) END
) VIRTUAL;
CREATE INDEX threads_expires ON threads (expires_at) WHERE expires_at IS NOT NULL;
`,
  },
  {
    version: 11,
    name: "store_vectors",
    // Semantic store search (langgraph.json store.index, core's rules/store-index.ts). An item's put keeps
    // its `index` choice (NULL: the configured fields; 'false'; a JSON array of paths) for a re-index.
    // Each embedded field is one row of unit float32 vectors keyed like the item, so a search reads an
    // item's vectors by primary key; deleting an item (delete, sweep, truncate) cascades to them.
    // store_index holds the one identity (embed, dims, fields) the vectors were made with.
    sql: `
ALTER TABLE store_items ADD COLUMN index_fields TEXT;
CREATE TABLE store_vectors (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  field TEXT NOT NULL,
  embedding BLOB NOT NULL,
  PRIMARY KEY (namespace, key, field),
  FOREIGN KEY (namespace, key) REFERENCES store_items (namespace, key) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE store_index (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  identity TEXT NOT NULL
);
`,
  },
  {
    version: 12,
    name: "thread_values_ref",
    // A run's settlement leaves the thread's values in its last checkpoint and writes only where they are
    // (core's rules/thread-values.ts); a read turns the pointer into values and keeps them in state_values.
    // The partial index lists the threads still holding a pointer (a search filtering on values).
    sql: `
ALTER TABLE threads ADD COLUMN values_ref TEXT;
CREATE INDEX threads_values_ref ON threads (thread_id) WHERE values_ref IS NOT NULL;
`,
  },
  {
    version: 13,
    name: "run_cancel_reason",
    // Why a run was cancelled (`Run.cancel_reason`), written by the cancel's own terminal UPDATE; NULL for
    // runs that were not cancelled, and for every run written before this migration.
    sql: "ALTER TABLE runs ADD COLUMN cancel_reason TEXT;",
  },
  {
    version: 14,
    name: "encryption_keys",
    // Storage.encryption: the keys that sealed data in this file, each with a value sealed by itself
    // (check_value, JSON) that proves a key given at start is that one (apps/server's key check).
    sql: `
CREATE TABLE encryption_keys (
  key_id TEXT PRIMARY KEY,
  check_value TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`,
  },
  {
    version: 15,
    name: "lean_run_indexes",
    // Every index a run's insert or settlement touches is one more page in that commit's WAL append (~13 µs
    // a page on the reference machine), for lookups that are rare or can walk a smaller index:
    // - runs_active replaces runs_pending, runs_leases and runs_status_created: the claim, the pending
    //   count, the lease walks and the status search without a thread all ask for pending or running runs
    //   (their queries name `status IN ('pending', 'running')` so the planner may use it); a run touches it
    //   once when admitted and once when it ends, instead of two indexes each time;
    // - runs_created: no route lists runs across threads without a status (such a search scans);
    // - runs_task_roots_thread: a context's task roots walk its thread's runs (runs_thread_created);
    // - checkpoints_run_id: three entries a run for a rollback's delete, which walks the thread's checkpoints
    //   instead, as pruning does.
    sql: `
DROP INDEX runs_pending;
DROP INDEX runs_leases;
DROP INDEX runs_status_created;
DROP INDEX runs_created;
DROP INDEX runs_task_roots_thread;
DROP INDEX checkpoints_run_id;
CREATE INDEX runs_active ON runs (status, created_at, seq) WHERE status IN ('pending', 'running');
`,
  },
  {
    version: 16,
    name: "lean_thread_indexes",
    // Three more pages a run wrote for lookups that do not need them:
    // - runs_assistant: no query reads runs by assistant alone (an assistant's task roots have
    //   runs_task_roots; deleting an assistant leaves its runs);
    // - threads_values_ref: the threads still holding a values pointer are listed only before a search or
    //   count filters on values, which evaluates every thread's values anyway (O(threads) either way);
    // - threads_status keeps only the threads that are not idle: a run moved its thread's entry out of
    //   `busy` and into `idle` (two pages) at every settlement; now it leaves the index. A search for a
    //   status other than idle names the condition (NOT_IDLE) so the planner may use it; one for idle
    //   threads walks the creation or update order.
    sql: `
DROP INDEX runs_assistant;
DROP INDEX threads_values_ref;
DROP INDEX threads_status;
CREATE INDEX threads_status ON threads (status, created_at) WHERE status <> 'idle';
`,
  },
];

/**
 * The condition of the partial index runs_active (migration 15), to repeat verbatim beside a status
 * predicate: SQLite uses a partial index only when the query's WHERE names its condition.
 */
export const ACTIVE_RUNS = "status IN ('pending', 'running')";
/** The condition of the partial index threads_status (migration lean_thread_indexes). */
export const NOT_IDLE = "status <> 'idle'";

/** A checkpoint's metadata `run_id` (NULL for metadata that is not JSON), as rollback's delete reads it. */
export const CHECKPOINT_RUN_ID_EXPR =
  "(CASE WHEN json_valid(CAST(metadata AS TEXT)) THEN json_extract(CAST(metadata AS TEXT), '$.run_id') END)";

/**
 * Applies the migrations not yet recorded, in one IMMEDIATE transaction (so two processes opening the
 * same new file do not both apply them). Returns the versions applied by this call.
 */
export function applyMigrations(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const applied = new Set((db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version));
    const insert = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    const done: number[] = [];
    for (const migration of sorted) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      insert.run(migration.version, migration.name, new Date().toISOString());
      done.push(migration.version);
    }
    return done;
  });
  return run.immediate();
}
