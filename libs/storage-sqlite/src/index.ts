export { SqliteStorage, openSqliteStorage } from "./storage.js";
export { AgentSqliteSaver } from "./checkpointer.js";
export { MIGRATIONS, applyMigrations, type Migration } from "./migrations.js";
