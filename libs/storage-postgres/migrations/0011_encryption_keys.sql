-- 0011_encryption_keys: the keys that sealed data in this schema (encryption at rest, EncryptionRepo).
-- A key is recorded the first time a server starts with it; its check_value is a fixed text sealed with
-- it, so a start can tell a wrong key from a right one before reading anything, and refuse data sealed
-- with a key it was not given. Only ids and check values: never a key. A rotation forgets the old ones.

CREATE TABLE IF NOT EXISTS encryption_keys (
  key_id      text PRIMARY KEY,
  check_value jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
