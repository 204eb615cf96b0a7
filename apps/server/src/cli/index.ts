/**
 * The command line: its arguments, usage text and exit codes. Light on purpose (main imports it before
 * knowing the command): the one-shot commands beside it (migrate.ts, store-reindex.ts, keys-rotate.ts)
 * open the storage, so main loads each by name only when it runs.
 */
export {
  EnvironmentError,
  parseCli,
  USAGE,
  UsageError,
  type CliOptions,
  type Command,
  type LogFormat,
  type Parsed,
  type ScaffoldCommand,
  type ScaffoldOptions,
  type SnapshotAction,
  type StorageKind,
} from "./args.js";
export { failure, oneShot, usageFailure } from "./exit.js";
