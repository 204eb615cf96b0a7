/** The CLI's building blocks, for embedding the server in another program or test harness. */
export {
  parseCli,
  USAGE,
  UsageError,
  type CliOptions,
  type Command,
  type SnapshotAction,
  type StorageKind,
  type LogFormat,
} from "./cli/index.js";
export { createLogger, runLogger } from "./observability/index.js";
export { openCustomStorage, openStorage, SQLITE_FILE, sqlitePath, type OpenedStorage, type ProjectStorage } from "./storage/index.js";
export { readProject, startServer, withTracingShutdown, type StartedServer } from "./serve/index.js";
export { startTracing, tracesRequested, type Tracing } from "./observability/index.js";
export { VERSION } from "./version.js";
export * from "./snapshot/index.js";
