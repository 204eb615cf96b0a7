import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { ConflictError, NO_ENCRYPTION, NotFoundError, type FieldCipher, type RunError, type Storage } from "@agent-server/core";
import { checkpointExists, fromEntry, restoreCheckpoint, type RestorableCheckpoint } from "./checkpoints.js";
import {
  checkEntry,
  checkHeader,
  parseEntry,
  SnapshotFormatError,
  type AssistantEntry,
  type CheckpointEntry,
  type CronEntry,
  type EntryType,
  type PushConfigEntry,
  type ResultEntry,
  type RunEntry,
  type SnapshotHeader,
  type StoreItemEntry,
  type ThreadEntry,
} from "./format.js";
import { emptyReport, type ImportReport } from "./report.js";

/**
 * Restores snapshot entries into any `Storage`, through its repositories and checkpointer only.
 *
 * Never overwrites: an entity whose id the target already has is skipped (and counted), so importing the
 * same snapshot twice imports nothing the second time. Entries are applied in file order, which the
 * exporter makes dependency order; an entry whose parent is missing at that point (a checkpoint or run
 * without its thread, a cron without its assistant) is skipped and counted. Results attach only to runs
 * that exist (imported now or already there) through `recordResult`, whose first-write-wins contract
 * keeps a result the target already has; orphan results are ignored; without `recordResult` on the
 * target, results are skipped. Memory: O(1) besides the entry being applied.
 */
export class SnapshotImporter {
  readonly report: ImportReport = emptyReport();
  /** The last thread looked up for a checkpoint (checkpoints of one thread come together). */
  private threadSeen: { id: string; exists: boolean } | null = null;

  constructor(private readonly storage: Storage) {}

  /** Applies one parsed entry; unknown types are counted and skipped. */
  async apply(entry: { type: string } & Record<string, unknown>): Promise<void> {
    switch (entry.type as EntryType) {
      case "assistant":
        return this.assistant(entry as unknown as AssistantEntry);
      case "thread":
        return this.thread(entry as unknown as ThreadEntry);
      case "checkpoint":
        return this.checkpoint(await fromEntry(this.storage.checkpointer, entry as unknown as CheckpointEntry));
      case "run":
        return this.run(entry as unknown as RunEntry);
      case "result":
        return this.result(entry as unknown as ResultEntry);
      case "push_config":
        return this.pushConfig(entry as unknown as PushConfigEntry);
      case "store_item":
        return this.storeItem(entry as unknown as StoreItemEntry);
      case "cron":
        return this.cron(entry as unknown as CronEntry);
      default:
        this.report.unknown[entry.type] = (this.report.unknown[entry.type] ?? 0) + 1;
    }
  }

  /**
   * Version 1 is created with the assistant's created_at, each later version by an update carrying that
   * version's fields, then the version in effect is made current. Version timestamps become "now";
   * metadata keys removed between versions survive (updates merge metadata).
   */
  async assistant({ assistant, versions }: AssistantEntry): Promise<void> {
    const repo = this.storage.assistants;
    const ordered = versions?.length ? [...versions].sort((a, b) => a.version - b.version) : [{ ...assistant, version: 1 }];
    const [first, ...rest] = ordered;
    try {
      await repo.create(
        {
          assistant_id: assistant.assistant_id,
          graph_id: first.graph_id,
          name: first.name,
          description: first.description,
          config: first.config,
          context: first.context,
          metadata: first.metadata,
          created_at: assistant.created_at,
        },
        { ifExists: "raise" },
      );
    } catch (error) {
      if (error instanceof ConflictError) return this.skip("assistant", "exists");
      throw error;
    }
    let current = 1;
    for (const version of rest) {
      const updated = await repo.update(assistant.assistant_id, {
        graph_id: version.graph_id,
        name: version.name,
        description: version.description,
        config: version.config,
        context: version.context,
        metadata: version.metadata,
      });
      current = updated?.version ?? current;
    }
    // Replayed versions are numbered 1..n in order; the one in effect keeps its place.
    const inEffect = ordered.findIndex((v) => v.version === assistant.version) + 1;
    if (inEffect > 0 && inEffect !== current) await repo.setLatest(assistant.assistant_id, inEffect);
    this.imported("assistant");
  }

  async thread({ thread }: ThreadEntry): Promise<void> {
    const repo = this.storage.threads;
    try {
      await repo.create(
        {
          thread_id: thread.thread_id,
          metadata: thread.metadata,
          config: thread.config,
          status: thread.status,
          created_at: thread.created_at,
        },
        { ifExists: "raise" },
      );
    } catch (error) {
      if (error instanceof ConflictError) return this.skip("thread", "exists");
      throw error;
    }
    await repo.update(thread.thread_id, {
      status: thread.status,
      values: thread.values ?? null,
      interrupts: thread.interrupts ?? {},
      ...(thread.error !== undefined && thread.error !== null ? { error: thread.error } : {}),
    });
    this.threadSeen = { id: thread.thread_id, exists: true };
    this.imported("thread");
  }

  /** Also the entry point of `import-dev`, whose checkpoints come from the dev server's saver already decoded. */
  async checkpoint(checkpoint: RestorableCheckpoint): Promise<void> {
    if (!(await this.threadExists(checkpoint.thread_id))) return this.skip("checkpoint", "no_thread");
    if (await checkpointExists(this.storage.checkpointer, checkpoint)) return this.skip("checkpoint", "exists");
    await restoreCheckpoint(this.storage.checkpointer, checkpoint);
    this.imported("checkpoint");
  }

  /**
   * A run keeps its status, except `running`, which is imported as `pending`: no worker holds it here, so
   * it is queued again, as after a crash.
   */
  async run({ run, internal, error }: RunEntry): Promise<void> {
    const repo = this.storage.runs;
    if (await repo.get(run.run_id)) return this.skip("run", "exists");
    try {
      await repo.create(
        {
          run_id: run.run_id,
          thread_id: run.thread_id,
          assistant_id: run.assistant_id,
          status: run.status === "running" ? "pending" : run.status,
          metadata: run.metadata,
          kwargs: run.kwargs,
          multitask_strategy: run.multitask_strategy,
          created_at: run.created_at,
          // Absent in snapshots written before runs kept it.
          ...(typeof run.cancel_reason === "string" ? { cancel_reason: run.cancel_reason } : {}),
        },
        {
          ...(internal && Object.keys(internal).length > 0 ? { internal } : {}),
          ...(isRunError(error) ? { error } : {}),
        },
      );
    } catch (error) {
      if (error instanceof ConflictError) return this.skip("run", "exists");
      if (error instanceof NotFoundError) return this.skip("run", "no_thread");
      throw error;
    }
    this.imported("run");
  }

  async result({ run_id, result }: ResultEntry): Promise<void> {
    const repo = this.storage.runs;
    if (!repo.recordResult) return this.skip("result", "unsupported");
    if (!(await repo.get(run_id))) return this.skip("result", "orphan");
    if (repo.getResult && (await repo.getResult(run_id)) !== null) return this.skip("result", "existing");
    await repo.recordResult(run_id, result);
    this.imported("result");
  }

  async pushConfig({ push_config: config }: PushConfigEntry): Promise<void> {
    const repo = this.storage.pushConfigs;
    if (!repo) return this.skip("push_config", "unsupported");
    if (await repo.get(config.run_id, config.config_id)) return this.skip("push_config", "exists");
    const stored = await repo.put({
      run_id: config.run_id,
      config_id: config.config_id,
      url: config.url,
      token: config.token ?? null,
      authentication: config.authentication ?? null,
    });
    if (stored === null) return this.skip("push_config", "orphan");
    this.imported("push_config");
  }

  async storeItem({ item }: StoreItemEntry): Promise<void> {
    if (await this.storage.store.get(item.namespace, item.key)) return this.skip("store_item", "exists");
    await this.storage.store.put(item.namespace, item.key, item.value);
    this.imported("store_item");
  }

  async cron({ cron }: CronEntry): Promise<void> {
    if (await this.storage.crons.get(cron.cron_id)) return this.skip("cron", "exists");
    if (!(await this.storage.assistants.get(cron.assistant_id))) return this.skip("cron", "no_assistant");
    if (cron.thread_id && !(await this.storage.threads.get(cron.thread_id))) return this.skip("cron", "no_thread");
    try {
      await this.storage.crons.create({
        cron_id: cron.cron_id,
        assistant_id: cron.assistant_id,
        thread_id: cron.thread_id,
        schedule: cron.schedule,
        payload: cron.payload,
        metadata: cron.metadata,
        user_id: cron.user_id,
        end_time: cron.end_time,
        next_run_date: cron.next_run_date,
        on_run_completed: cron.on_run_completed,
        enabled: cron.enabled,
      });
    } catch (error) {
      if (error instanceof ConflictError) return this.skip("cron", "exists");
      throw error;
    }
    this.imported("cron");
  }

  private async threadExists(threadId: string): Promise<boolean> {
    if (this.threadSeen?.id !== threadId) {
      this.threadSeen = { id: threadId, exists: (await this.storage.threads.get(threadId)) !== null };
    }
    return this.threadSeen.exists;
  }

  private imported(type: EntryType): void {
    this.report.counts[type].imported += 1;
  }

  /** Counts an entry skipped before it reached the importer (import-dev: an item it cannot represent). */
  noteSkipped(type: EntryType, why: string): void {
    this.skip(type, why);
  }

  private skip(type: EntryType, why: string): void {
    const count = this.report.counts[type];
    count.skipped += 1;
    count.why[why] = (count.why[why] ?? 0) + 1;
  }
}

/**
 * Imports a snapshot file. The whole file is checked first (header, version, every line an entry), so a
 * file that is not a snapshot, or is cut short, changes nothing. Then it is streamed again and applied
 * entry by entry. An import that fails half-way (a database error) can be re-run: what it had written is
 * skipped.
 */
export async function importSnapshotFile(
  storage: Storage,
  path: string,
  cipher: FieldCipher = NO_ENCRYPTION,
): Promise<ImportReport & { header: SnapshotHeader }> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new SnapshotFormatError(`snapshot file not found: ${path}`);
  if (!info.isFile()) throw new SnapshotFormatError(`${path} is not a file`);
  const header = await scan(path, cipher, (entry, lineNumber) => checkEntry(entry, path, lineNumber));
  const importer = new SnapshotImporter(storage);
  await scan(path, cipher, (entry) => importer.apply(entry));
  return { ...importer.report, header };
}

async function scan(
  path: string,
  cipher: FieldCipher,
  each: (entry: { type: string } & Record<string, unknown>, lineNumber: number) => Promise<void> | void,
): Promise<SnapshotHeader> {
  const input = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let header: SnapshotHeader | undefined;
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (header === undefined) {
        header = checkHeader(line, path);
        continue;
      }
      if (line.trim() === "") continue;
      await each(parseEntry(line, path, lineNumber, cipher), lineNumber);
    }
  } finally {
    lines.close();
    input.destroy();
  }
  return header ?? checkHeader(undefined, path);
}

/** A run entry's `error` as a run keeps it; anything else (absent in older snapshots) is left out. */
function isRunError(value: unknown): value is RunError {
  const candidate = value as { error?: unknown; message?: unknown } | null | undefined;
  return typeof candidate?.error === "string" && typeof candidate.message === "string";
}
