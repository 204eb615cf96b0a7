export { SqliteStorage, openSqliteStorage, type SqliteStorageOptions } from "./storage.js";
export type { SqliteVectorSearch } from "./store-vectors.js";
export { AgentSqliteSaver } from "./checkpointer.js";
export { MIGRATIONS, applyMigrations, type Migration } from "./migrations.js";
