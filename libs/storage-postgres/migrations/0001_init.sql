-- 0001_init: the driver's tables. Runs inside the migration transaction with search_path set to the
-- driver's schema, so names are unqualified. Additive and idempotent: IF NOT EXISTS everywhere.
-- The LangGraph checkpointer's tables (checkpoints, checkpoint_blobs, checkpoint_writes,
-- checkpoint_migrations) belong to PostgresSaver.setup(), not to these migrations.

CREATE TABLE IF NOT EXISTS assistants (
  assistant_id text PRIMARY KEY,
  graph_id     text NOT NULL,
  name         text NOT NULL,
  description  text,
  config       jsonb NOT NULL DEFAULT '{}',
  context      jsonb,
  metadata     jsonb NOT NULL DEFAULT '{}',
  version      integer NOT NULL,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  seq          bigserial NOT NULL
);
CREATE INDEX IF NOT EXISTS assistants_created_idx ON assistants (created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS assistants_graph_idx ON assistants (graph_id);
CREATE INDEX IF NOT EXISTS assistants_metadata_gin ON assistants USING gin (metadata jsonb_path_ops);

CREATE TABLE IF NOT EXISTS assistant_versions (
  assistant_id text NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
  version      integer NOT NULL,
  graph_id     text NOT NULL,
  name         text NOT NULL,
  description  text,
  config       jsonb NOT NULL DEFAULT '{}',
  context      jsonb,
  metadata     jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (assistant_id, version)
);
CREATE INDEX IF NOT EXISTS assistant_versions_metadata_gin ON assistant_versions USING gin (metadata jsonb_path_ops);

CREATE TABLE IF NOT EXISTS threads (
  thread_id   text PRIMARY KEY,
  status      text NOT NULL DEFAULT 'idle',
  metadata    jsonb NOT NULL DEFAULT '{}',
  config      jsonb NOT NULL DEFAULT '{}',
  "values"    jsonb,
  interrupts  jsonb NOT NULL DEFAULT '{}',
  error       jsonb,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  seq         bigserial NOT NULL
);
CREATE INDEX IF NOT EXISTS threads_created_idx ON threads (created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS threads_status_idx ON threads (status, created_at DESC);
CREATE INDEX IF NOT EXISTS threads_metadata_gin ON threads USING gin (metadata jsonb_path_ops);
CREATE INDEX IF NOT EXISTS threads_values_gin ON threads USING gin ("values" jsonb_path_ops);

CREATE TABLE IF NOT EXISTS runs (
  run_id             text PRIMARY KEY,
  thread_id          text NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  assistant_id       text NOT NULL,
  status             text NOT NULL,
  metadata           jsonb NOT NULL DEFAULT '{}',
  kwargs             jsonb NOT NULL DEFAULT '{}',
  multitask_strategy text NOT NULL,
  -- RunInternal: server-private, never part of Run.
  internal           jsonb NOT NULL DEFAULT '{}',
  lease_owner        text,
  lease_expires_at   timestamptz,
  attempt            integer NOT NULL DEFAULT 0,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  -- Insertion order: newest-first listings break created_at ties with it.
  seq                bigserial NOT NULL UNIQUE
);
CREATE INDEX IF NOT EXISTS runs_thread_created_idx ON runs (thread_id, created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS runs_created_idx ON runs (created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS runs_status_idx ON runs (status, created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS runs_pending_claim_idx ON runs (created_at, seq) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS runs_thread_active_idx ON runs (thread_id, status) WHERE status IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS runs_lease_expiry_idx ON runs (lease_expires_at) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS runs_assistant_idx ON runs (assistant_id);
CREATE INDEX IF NOT EXISTS runs_metadata_gin ON runs USING gin (metadata jsonb_path_ops);

CREATE TABLE IF NOT EXISTS run_results (
  run_id     text PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
  result     jsonb NOT NULL,
  created_at timestamptz NOT NULL
);

-- No foreign key to runs: events may be appended for a run id before (or without) its row, and the
-- driver deletes them explicitly with their run, thread or assistant.
CREATE TABLE IF NOT EXISTS run_events (
  run_id     text NOT NULL,
  id         bigint NOT NULL,
  event      text NOT NULL,
  data       jsonb,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (run_id, id)
);
CREATE INDEX IF NOT EXISTS run_events_expiry_idx ON run_events (expires_at);

-- Last event id handed out per run. Kept when events expire or are deleted, so a client's Last-Event-ID
-- never matches a later, different event; removed with the run.
CREATE TABLE IF NOT EXISTS run_event_counters (
  run_id  text PRIMARY KEY,
  last_id bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS store_items (
  -- Namespace labels joined with "." (labels never contain "."), for prefix matching.
  ns_path    text NOT NULL,
  namespace  text[] NOT NULL,
  key        text NOT NULL,
  value      jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Bumped on every put: newest-update-first listings break updated_at ties with it.
  seq        bigserial NOT NULL,
  PRIMARY KEY (ns_path, key)
);
CREATE INDEX IF NOT EXISTS store_items_prefix_idx ON store_items (ns_path text_pattern_ops);
CREATE INDEX IF NOT EXISTS store_items_updated_idx ON store_items (updated_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS store_items_value_gin ON store_items USING gin (value jsonb_path_ops);

CREATE TABLE IF NOT EXISTS crons (
  cron_id          text PRIMARY KEY,
  assistant_id     text NOT NULL,
  thread_id        text,
  schedule         text NOT NULL,
  payload          jsonb NOT NULL DEFAULT '{}',
  metadata         jsonb NOT NULL DEFAULT '{}',
  user_id          text,
  end_time         timestamptz,
  next_run_date    timestamptz,
  on_run_completed text NOT NULL,
  enabled          boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  seq              bigserial NOT NULL
);
CREATE INDEX IF NOT EXISTS crons_due_idx ON crons (next_run_date, seq) WHERE enabled AND next_run_date IS NOT NULL;
CREATE INDEX IF NOT EXISTS crons_created_idx ON crons (created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS crons_assistant_idx ON crons (assistant_id);
CREATE INDEX IF NOT EXISTS crons_thread_idx ON crons (thread_id);
CREATE INDEX IF NOT EXISTS crons_metadata_gin ON crons USING gin (metadata jsonb_path_ops);

CREATE TABLE IF NOT EXISTS deliveries (
  delivery_id     text PRIMARY KEY,
  kind            text NOT NULL,
  url             text NOT NULL,
  headers         jsonb NOT NULL DEFAULT '{}',
  -- NULL once delivered or given up.
  payload         jsonb,
  run_id          text,
  status          text NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error      text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  seq             bigserial NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_due_idx ON deliveries (status, next_attempt_at, seq);
CREATE INDEX IF NOT EXISTS deliveries_finished_idx ON deliveries (updated_at) WHERE status <> 'pending';
CREATE INDEX IF NOT EXISTS deliveries_run_idx ON deliveries (run_id);
