import { isSealedJson, NO_ENCRYPTION, type FieldCipher } from "@agent-server/core";
import type {
  Assistant,
  AssistantVersion,
  Cron,
  Item,
  PushConfig,
  Run,
  RunError,
  RunInternal,
  RunResult,
  Thread,
} from "@agent-server/core";

/**
 * The snapshot file: JSON Lines. Line 1 is a `SnapshotHeader`; every further line is one `SnapshotEntry`.
 * Values are the wire JSON the repositories return (what the HTTP API emits); checkpoint payloads are the
 * checkpointer's own serialization (`serde.dumpsTyped`), base64-encoded, so LangChain messages and other
 * revivable objects round-trip exactly.
 */
export const SNAPSHOT_FORMAT = "agent-server-snapshot";
export const SNAPSHOT_VERSION = 1;

export interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  created_at: string;
  server_version: string;
  /** `Storage.kind` of the store exported (informational). */
  source?: string;
  /** The key every entry line is sealed with (exported with LANGGRAPH_AES_KEY set, without --decrypt). */
  sealed_with?: string;
}

/** Where sealed snapshot entries say they live (a line moved into another kind of file does not open). */
export const SNAPSHOT_ENTRY_AAD = "snapshot.entry";

/** A value as `serde.dumpsTyped` produced it: the serializer's type tag and the bytes, base64. */
export interface SerializedValue {
  type: string;
  data: string;
}

/** An assistant with every version, oldest first; `assistant.version` is the version in effect. */
export interface AssistantEntry {
  type: "assistant";
  assistant: Assistant;
  versions: AssistantVersion[];
}

export interface ThreadEntry {
  type: "thread";
  thread: Thread;
}

/** One checkpoint of a thread (any namespace) with its pending writes, in the order the saver returned them. */
export interface CheckpointEntry {
  type: "checkpoint";
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: SerializedValue;
  metadata: SerializedValue;
  writes: { task_id: string; channel: string; value: SerializedValue }[];
}

/** A run row and its server-private facts. Never carries a result: results are separate entries. */
export interface RunEntry {
  type: "run";
  run: Run;
  internal: RunInternal | null;
  /** The error a failed run keeps (`RunRepo.getError`). Absent when it has none, and in older snapshots. */
  error?: RunError;
}

/** What a run produced (`RunRepo.getResult`). Optional: old snapshots have none. */
export interface ResultEntry {
  type: "result";
  run_id: string;
  result: RunResult;
}

export interface PushConfigEntry {
  type: "push_config";
  push_config: PushConfig;
}

export interface StoreItemEntry {
  type: "store_item";
  item: Item;
}

export interface CronEntry {
  type: "cron";
  cron: Cron;
}

export type SnapshotEntry =
  AssistantEntry | ThreadEntry | CheckpointEntry | RunEntry | ResultEntry | PushConfigEntry | StoreItemEntry | CronEntry;

export type EntryType = SnapshotEntry["type"];

/** In the order the exporter writes them: every entry comes after what it depends on. */
export const ENTRY_TYPES: readonly EntryType[] = [
  "assistant",
  "thread",
  "checkpoint",
  "run",
  "result",
  "push_config",
  "store_item",
  "cron",
];

/** The file is not a snapshot this server can read (not JSON Lines, no header, a newer version...). */
export class SnapshotFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SnapshotFormatError";
  }
}

export function makeHeader(serverVersion: string, source: string, sealedWith?: string): SnapshotHeader {
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    created_at: new Date().toISOString(),
    server_version: serverVersion,
    source,
    ...(sealedWith ? { sealed_with: sealedWith } : {}),
  };
}

/** Checks line 1 of a file; `where` names the file in the error. */
export function checkHeader(line: string | undefined, where: string): SnapshotHeader {
  const foreign = `${where} is not an agent-server snapshot: the first line must be a header {"format":"${SNAPSHOT_FORMAT}","version":${SNAPSHOT_VERSION},...}`;
  if (line === undefined) throw new SnapshotFormatError(`${where} is empty: not an agent-server snapshot`);
  let header: unknown;
  try {
    header = JSON.parse(line);
  } catch {
    throw new SnapshotFormatError(foreign);
  }
  if (!isObject(header) || header.format !== SNAPSHOT_FORMAT) throw new SnapshotFormatError(foreign);
  if (typeof header.version !== "number" || !Number.isInteger(header.version) || header.version < 1) {
    throw new SnapshotFormatError(`${where}: snapshot header has no valid version`);
  }
  if (header.version > SNAPSHOT_VERSION) {
    throw new SnapshotFormatError(
      `${where} is a version ${header.version} snapshot; this server (format version ${SNAPSHOT_VERSION}) cannot read it`,
    );
  }
  return header as unknown as SnapshotHeader;
}

/** Parses one entry line; anything but a JSON object with a string `type` is a format error. */
export function parseEntry(
  line: string,
  where: string,
  lineNumber: number,
  cipher: FieldCipher = NO_ENCRYPTION,
): { type: string } & Record<string, unknown> {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch (error) {
    throw new SnapshotFormatError(`${where}:${lineNumber}: not valid JSON (${(error as Error).message})`);
  }
  // A snapshot exported with a key holds each entry sealed (header `sealed_with`).
  if (isSealedJson(entry)) entry = cipher.openJson(entry, SNAPSHOT_ENTRY_AAD);
  if (!isObject(entry) || typeof entry.type !== "string") {
    throw new SnapshotFormatError(`${where}:${lineNumber}: an entry must be a JSON object with a string "type"`);
  }
  return entry as { type: string } & Record<string, unknown>;
}

/** What each known entry type must carry (string ids, objects); unknown types pass (they are skipped). */
const REQUIRED: Record<EntryType, [string, string][]> = {
  assistant: [["assistant", "assistant_id"]],
  thread: [["thread", "thread_id"]],
  checkpoint: [
    ["", "thread_id"],
    ["", "checkpoint_id"],
    ["checkpoint", "data"],
    ["metadata", "data"],
  ],
  run: [
    ["run", "run_id"],
    ["run", "thread_id"],
    ["run", "assistant_id"],
  ],
  result: [["", "run_id"]],
  push_config: [
    ["push_config", "run_id"],
    ["push_config", "config_id"],
  ],
  store_item: [["item", "key"]],
  cron: [
    ["cron", "cron_id"],
    ["cron", "assistant_id"],
  ],
};

/** Checks a known entry's shape before anything is imported, so a damaged file changes nothing. */
export function checkEntry(entry: { type: string } & Record<string, unknown>, where: string, lineNumber: number): void {
  const required = REQUIRED[entry.type as EntryType];
  if (!required) return;
  for (const [member, field] of required) {
    const holder = member === "" ? entry : entry[member];
    if (!isObject(holder) || typeof holder[field] !== "string") {
      throw new SnapshotFormatError(`${where}:${lineNumber}: ${entry.type} entry without ${member ? `${member}.` : ""}${field}`);
    }
  }
  if (entry.type === "result" && !isObject(entry.result))
    throw new SnapshotFormatError(`${where}:${lineNumber}: result entry without result`);
  if (
    entry.type === "store_item" &&
    !(Array.isArray((entry.item as { namespace?: unknown }).namespace) && isObject((entry.item as { value?: unknown }).value))
  ) {
    throw new SnapshotFormatError(`${where}:${lineNumber}: store_item entry without item.namespace or item.value`);
  }
}

export function encodeBytes(type: string, bytes: Uint8Array): SerializedValue {
  return { type, data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
}

export function decodeBytes(value: SerializedValue): Uint8Array {
  return new Uint8Array(Buffer.from(value.data, "base64"));
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
