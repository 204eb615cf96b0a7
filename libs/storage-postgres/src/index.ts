export { PostgresStorage, openPostgresStorage, type PostgresStorageOptions } from "./storage.js";
export { RunAwarePostgresSaver } from "./checkpointer.js";
export { applyMigrations } from "./migrate.js";
export { MIGRATIONS } from "./migrations.generated.js";
export type { Migration } from "./migrations-compiler.js";
export { CONNECT_TIMEOUT_MS, guardPool, poolOptions } from "./connections.js";
