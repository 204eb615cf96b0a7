-- 0006_ttl: TTL sweeps (core's rules/ttl.ts). A store item keeps its put's TTL (minutes, for refreshes)
-- and its expiry. A thread keeps its TTL; its expiry is generated from updated_at, so every write of the
-- thread restarts its clock without a statement of its own, as core's threadExpiresAt computes it
-- (timestamp arithmetic in UTC, which is immutable, unlike timestamptz + interval). Both expiries are
-- indexed for the rows that have one, so a sweep reads an index range.

ALTER TABLE store_items ADD COLUMN IF NOT EXISTS ttl_minutes double precision;
ALTER TABLE store_items ADD COLUMN IF NOT EXISTS expires_at timestamptz;
CREATE INDEX IF NOT EXISTS store_items_expires_idx ON store_items (expires_at) WHERE expires_at IS NOT NULL;

ALTER TABLE threads ADD COLUMN IF NOT EXISTS ttl_strategy text;
ALTER TABLE threads ADD COLUMN IF NOT EXISTS ttl_minutes double precision;
ALTER TABLE threads ADD COLUMN IF NOT EXISTS expires_at timestamptz
  GENERATED ALWAYS AS (
    ((updated_at AT TIME ZONE 'UTC') + ttl_minutes * interval '1 minute') AT TIME ZONE 'UTC'
  ) STORED;
CREATE INDEX IF NOT EXISTS threads_expires_idx ON threads (expires_at) WHERE expires_at IS NOT NULL;
