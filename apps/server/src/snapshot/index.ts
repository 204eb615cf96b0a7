/**
 * Snapshots of a whole store (JSON Lines), generic over `Storage`: export, import (never overwriting),
 * memory start-up from a snapshot, and import of the official JS dev server's `.langgraph_api` folder.
 * See docs/snapshots.md.
 */
export {
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  SnapshotFormatError,
  type SnapshotHeader,
  type SnapshotEntry,
  type EntryType,
  type AssistantEntry,
  type ThreadEntry,
  type CheckpointEntry,
  type RunEntry,
  type ResultEntry,
  type PushConfigEntry,
  type StoreItemEntry,
  type CronEntry,
} from "./format.js";
export { exportSnapshot, exportSnapshotFile, PAGE_SIZE, type ExportCounts } from "./export.js";
export { importSnapshotFile, SnapshotImporter } from "./import.js";
export { importDevFolder, DEV_FILES } from "./dev-import.js";
export { formatReport, formatExportCounts, type ImportReport, type TypeCount } from "./report.js";
