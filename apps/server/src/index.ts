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
} from "./args.js";
export { createLogger, runLogger } from "./logger.js";
export { openStorage, sqlitePath, type OpenedStorage, type ProjectStorage } from "./storage.js";
export { openCustomStorage } from "./custom-storage.js";
export { readProject, startServer, type StartedServer } from "./start-server.js";
export { startTracing, tracesRequested, withTracingShutdown, type Tracing } from "./tracing/index.js";
export { VERSION } from "./version.js";
export * from "./snapshot/index.js";
