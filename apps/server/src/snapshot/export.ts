import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { AssistantVersion, FieldCipher, Storage } from "@agent-server/core";
import { threadCheckpoints, toEntry } from "./checkpoints.js";
import { ENTRY_TYPES, makeHeader, SNAPSHOT_ENTRY_AAD, type EntryType, type SnapshotEntry, type SnapshotHeader } from "./format.js";

/** Rows read per repository call. */
export const PAGE_SIZE = 200;

export type ExportCounts = Record<EntryType, number>;

/**
 * Writes the whole store as snapshot lines through `write`, in dependency order: assistants (with all
 * their versions), then per thread the thread, its checkpoints (all namespaces, with pending writes) and
 * its runs, each run followed by its result and push configs; then store items, then crons.
 * Deliveries and stream events are transient and left out.
 *
 * Cost: every repository is read in pages of `PAGE_SIZE` through `search` (limit/offset, stable sort by
 * id where the repo has one), so memory holds one page, one assistant's versions and whatever the saver's
 * `list` buffers for one thread, never the whole store. Time is O(rows) repository reads plus the offset
 * scans of SQL drivers: O(n²/PAGE_SIZE) rows skipped for n rows of one kind (the memory driver sorts per
 * page instead, O(n log n) each). Run it on a quiet store: rows written during the export may be missed
 * or seen twice (an import skips ids it already has).
 */
export interface ExportOptions {
  serverVersion: string;
  /** The server's cipher: a sealing one seals every entry. */
  cipher?: FieldCipher;
  /** `snapshot export --decrypt`: plaintext entries even with a key. */
  decrypt?: boolean;
}

export async function exportSnapshot(
  storage: Storage,
  write: (line: string) => Promise<void>,
  options: ExportOptions,
): Promise<ExportCounts> {
  const counts = Object.fromEntries(ENTRY_TYPES.map((t) => [t, 0])) as ExportCounts;
  // With a key, every entry is sealed (the header says with which key), unless --decrypt asked for plaintext.
  const cipher = options.cipher?.sealing && !options.decrypt ? options.cipher : undefined;
  const header: SnapshotHeader = makeHeader(options.serverVersion, storage.kind, cipher?.keyId);
  await write(JSON.stringify(header));
  const emit = async (entry: SnapshotEntry) => {
    counts[entry.type] += 1;
    await write(JSON.stringify(cipher ? cipher.sealJson(entry, SNAPSHOT_ENTRY_AAD) : entry));
  };

  for await (const assistant of pages((offset) =>
    storage.assistants.search({ limit: PAGE_SIZE, offset, sort_by: "assistant_id", sort_order: "asc" }),
  )) {
    const versions: AssistantVersion[] = [];
    for await (const version of pages((offset) => storage.assistants.listVersions(assistant.assistant_id, { limit: PAGE_SIZE, offset }))) {
      versions.push(version);
    }
    versions.sort((a, b) => a.version - b.version);
    await emit({ type: "assistant", assistant, versions });
  }

  for await (const thread of pages((offset) =>
    storage.threads.search({ limit: PAGE_SIZE, offset, sort_by: "thread_id", sort_order: "asc" }),
  )) {
    await emit({ type: "thread", thread });
    for await (const checkpoint of threadCheckpoints(storage.checkpointer, thread.thread_id)) {
      await emit(await toEntry(storage.checkpointer, checkpoint));
    }
    for await (const run of pages((offset) => storage.runs.search({ thread_id: thread.thread_id, limit: PAGE_SIZE, offset }))) {
      const error = await storage.runs.getError(run.run_id);
      await emit({ type: "run", run, internal: await storage.runs.getInternal(run.run_id), ...(error ? { error } : {}) });
      const result = storage.runs.getResult ? await storage.runs.getResult(run.run_id) : null;
      if (result) await emit({ type: "result", run_id: run.run_id, result });
      for (const pushConfig of (await storage.pushConfigs?.list(run.run_id)) ?? []) {
        await emit({ type: "push_config", push_config: pushConfig });
      }
    }
  }

  for await (const item of pages((offset) => storage.store.search([], { limit: PAGE_SIZE, offset }))) {
    await emit({ type: "store_item", item });
  }

  for await (const cron of pages((offset) => storage.crons.search({ limit: PAGE_SIZE, offset, sort_by: "cron_id", sort_order: "asc" }))) {
    await emit({ type: "cron", cron });
  }
  return counts;
}

/**
 * Exports into `path` atomically: the lines go to a temporary file in the same folder, which is flushed
 * to disk and renamed over `path` only when complete, so `path` always holds a whole snapshot.
 */
export async function exportSnapshotFile(storage: Storage, path: string, options: ExportOptions): Promise<ExportCounts> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const file = await open(temp, "w");
  let buffered: string[] = [];
  let size = 0;
  const flush = async () => {
    if (buffered.length === 0) return;
    const chunk = buffered.join("");
    buffered = [];
    size = 0;
    await file.write(chunk);
  };
  try {
    const counts = await exportSnapshot(
      storage,
      async (line) => {
        buffered.push(`${line}\n`);
        size += line.length + 1;
        if (size >= 1 << 16) await flush();
      },
      options,
    );
    await flush();
    await file.sync();
    await file.close();
    await rename(temp, path);
    return counts;
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}

/** Reads `fetch(offset)` page by page until a short page. */
async function* pages<T>(fetch: (offset: number) => Promise<T[]>): AsyncGenerator<T> {
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const page = await fetch(offset);
    yield* page;
    if (page.length < PAGE_SIZE) return;
  }
}
