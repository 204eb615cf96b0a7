-- 0007_store_vectors: semantic store search (langgraph.json store.index, core's rules/store-index.ts).
-- An item's put keeps its `index` choice (NULL: the configured fields; false; an array of paths) for a
-- re-index. Each embedded field is one row holding a unit vector (real[]: no extension needed; with
-- pgvector installed, searches cast it to `vector`), keyed like the item so a search reads an item's
-- vectors by primary key; deleting an item (delete, sweep) cascades to them. store_index holds the one
-- identity (embed, dims, fields) the vectors were made with.

ALTER TABLE store_items ADD COLUMN IF NOT EXISTS index_fields jsonb;
CREATE TABLE IF NOT EXISTS store_vectors (
  ns_path   text NOT NULL,
  key       text NOT NULL,
  field     text NOT NULL,
  embedding real[] NOT NULL,
  PRIMARY KEY (ns_path, key, field),
  FOREIGN KEY (ns_path, key) REFERENCES store_items (ns_path, key) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS store_index (
  id       int PRIMARY KEY CHECK (id = 1),
  identity text NOT NULL
);
