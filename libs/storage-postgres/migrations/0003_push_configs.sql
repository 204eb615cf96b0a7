-- 0003_push_configs: A2A push notification configs. They go with their run (ON DELETE CASCADE, like
-- run_results); thread copy does not copy them.

CREATE TABLE IF NOT EXISTS push_configs (
  run_id         text NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  config_id      text NOT NULL,
  url            text NOT NULL,
  token          text,
  authentication jsonb,
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (run_id, config_id)
);
