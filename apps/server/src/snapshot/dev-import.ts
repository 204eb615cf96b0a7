import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { toWireJson, type Assistant, type AssistantVersion, type Run, type RunStatus, type Storage, type Thread } from "@agent-server/core";
import { load } from "@langchain/core/load";
import { MemorySaver } from "@langchain/langgraph";
import { fromTuple } from "./checkpoints.js";
import { isObject, SnapshotFormatError } from "./format.js";
import { SnapshotImporter } from "./import.js";
import type { ImportReport } from "./report.js";
import { fromSuperJson, isSuperJsonPayload } from "./superjson.js";

/**
 * The files `@langchain/langgraph-api` (`langgraphjs dev`, in-memory mode) keeps in `.langgraph_api/`,
 * each `superjson.stringify` of one object (src/storage/persist.mts `FileSystemPersistence`):
 * - ops: `{ runs: {id: Run}, threads: {id: Thread}, assistants: {id: Assistant}, assistant_versions:
 *   AssistantVersion[], retry_counter }` (src/storage/ops.mts, types.mts); dates are `Date`s, state values
 *   hold LangChain messages as `{ lc: 1, type: "constructor", ... }`, revived with `load` as the dev
 *   server does;
 * - checkpointer: a `MemorySaver`'s `{ storage, writes }` with `Uint8Array` leaves (src/storage/checkpoint.mts);
 * - store: an `InMemoryStore`'s `{ data: Map<namespace joined by ":", Map<key, Item>>, vectors }`.
 */
export const DEV_FILES = {
  ops: ".langgraphjs_ops.json",
  checkpointer: ".langgraphjs_api.checkpointer.json",
  store: ".langgraphjs_api.store.json",
} as const;

interface DevOps {
  runs?: Record<string, Record<string, unknown>>;
  threads?: Record<string, Record<string, unknown>>;
  assistants?: Record<string, Record<string, unknown>>;
  assistant_versions?: Record<string, unknown>[] | Record<string, Record<string, unknown>>;
}

/**
 * Imports a `.langgraph_api` folder into `storage` with the snapshot importer's rules (never overwrites,
 * counts what it skips). The dev server keeps no run results, so none are imported ("old snapshot").
 * Its files are read whole, as the dev server itself reads them.
 */
export async function importDevFolder(storage: Storage, dir: string): Promise<ImportReport & { files: string[] }> {
  const folder = resolve(dir);
  const info = await stat(folder).catch(() => null);
  if (!info?.isDirectory()) throw new SnapshotFormatError(`not a folder: ${folder} (expected the dev server's .langgraph_api folder)`);
  const ops = (await readDevFile(folder, DEV_FILES.ops, true)) as DevOps | undefined;
  const saverData = (await readDevFile(folder, DEV_FILES.checkpointer, false)) as { storage?: unknown; writes?: unknown } | undefined;
  const storeData = (await readDevFile(folder, DEV_FILES.store, true)) as { data?: unknown } | undefined;
  const files = (
    [
      [ops, DEV_FILES.ops],
      [saverData, DEV_FILES.checkpointer],
      [storeData, DEV_FILES.store],
    ] as const
  )
    .filter(([data]) => data !== undefined)
    .map(([, name]) => name);
  if (files.length === 0) {
    throw new SnapshotFormatError(`${folder} holds none of ${Object.values(DEV_FILES).join(", ")}: not a .langgraph_api folder`);
  }

  const importer = new SnapshotImporter(storage);
  const versions = groupVersions(ops?.assistant_versions);
  for (const raw of Object.values(ops?.assistants ?? {})) {
    const assistant = devAssistant(raw);
    await importer.assistant({ type: "assistant", assistant, versions: (versions.get(assistant.assistant_id) ?? []).map(devVersion) });
  }
  for (const raw of Object.values(ops?.threads ?? {})) await importer.thread({ type: "thread", thread: devThread(raw) });

  if (isObject(saverData?.storage)) {
    const saver = new MemorySaver();
    saver.storage = saverData.storage as MemorySaver["storage"];
    saver.writes = (isObject(saverData.writes) ? saverData.writes : {}) as MemorySaver["writes"];
    for (const threadId of Object.keys(saver.storage)) {
      for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) await importer.checkpoint(fromTuple(tuple));
    }
  }

  for (const raw of Object.values(ops?.runs ?? {})) await importer.run({ type: "run", run: devRun(raw), internal: null });

  if (storeData?.data instanceof Map) {
    for (const items of storeData.data.values()) {
      if (!(items instanceof Map)) continue;
      for (const raw of items.values()) {
        const item = raw as { namespace?: string[]; key?: string; value?: unknown; createdAt?: unknown; updatedAt?: unknown };
        const value = item.value === undefined ? undefined : toWireJson(item.value);
        if (!Array.isArray(item.namespace) || typeof item.key !== "string" || !isObject(value)) {
          importer.noteSkipped("store_item", "invalid");
          continue;
        }
        await importer.storeItem({
          type: "store_item",
          item: { namespace: item.namespace, key: item.key, value, created_at: iso(item.createdAt), updated_at: iso(item.updatedAt) },
        });
      }
    }
  }
  return { ...importer.report, files };
}

/** Reads one superjson file; undefined when it does not exist. `revive`: LangChain objects come back as instances. */
async function readDevFile(folder: string, name: string, revive: boolean): Promise<unknown> {
  const path = join(folder, name);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = revive ? await load(text) : JSON.parse(text);
  } catch (error) {
    throw new SnapshotFormatError(`${path}: not readable as the dev server's superjson file (${(error as Error).message})`);
  }
  if (!isSuperJsonPayload(parsed)) throw new SnapshotFormatError(`${path}: not a superjson file (no "json" member)`);
  return fromSuperJson(parsed);
}

function groupVersions(raw: DevOps["assistant_versions"]): Map<string, Record<string, unknown>[]> {
  const byAssistant = new Map<string, Record<string, unknown>[]>();
  for (const version of Object.values(raw ?? {}) as Record<string, unknown>[]) {
    const id = String(version.assistant_id);
    byAssistant.set(id, [...(byAssistant.get(id) ?? []), version]);
  }
  return byAssistant;
}

function devAssistant(raw: Record<string, unknown>): Assistant {
  const graphId = String(raw.graph_id);
  return {
    assistant_id: String(raw.assistant_id),
    graph_id: graphId,
    name: typeof raw.name === "string" && raw.name ? raw.name : graphId,
    description: typeof raw.description === "string" ? raw.description : null,
    config: object(raw.config),
    context: raw.context === undefined ? null : toWireJson(raw.context),
    metadata: object(raw.metadata),
    version: typeof raw.version === "number" ? raw.version : 1,
    created_at: iso(raw.created_at),
    updated_at: iso(raw.updated_at ?? raw.created_at),
  };
}

function devVersion(raw: Record<string, unknown>): AssistantVersion {
  const { updated_at: _, ...version } = devAssistant(raw);
  return version;
}

function devThread(raw: Record<string, unknown>): Thread {
  return {
    thread_id: String(raw.thread_id),
    created_at: iso(raw.created_at),
    updated_at: iso(raw.updated_at ?? raw.created_at),
    metadata: object(raw.metadata),
    config: object(raw.config),
    status: (["idle", "busy", "interrupted", "error"].includes(raw.status as string) ? raw.status : "idle") as Thread["status"],
    values: raw.values == null ? null : object(raw.values),
    interrupts: object(raw.interrupts) as Thread["interrupts"],
    error: null,
  };
}

/**
 * The dev server's kwargs are close to ours (input, command, config, stream_mode, interrupt_*, subgraphs,
 * temporary, resumable); a queued run needs `config.configurable` and `stream_mode` to execute here.
 */
function devRun(raw: Record<string, unknown>): Run {
  const kwargs = object(raw.kwargs);
  const config = object(kwargs.config);
  return {
    run_id: String(raw.run_id),
    thread_id: String(raw.thread_id),
    assistant_id: String(raw.assistant_id),
    created_at: iso(raw.created_at),
    updated_at: iso(raw.updated_at ?? raw.created_at),
    status: (raw.status ?? "success") as RunStatus,
    metadata: object(raw.metadata),
    kwargs: {
      ...kwargs,
      config: { ...config, configurable: object(config.configurable) },
      stream_mode: Array.isArray(kwargs.stream_mode) ? (kwargs.stream_mode as string[]) : ["values"],
    },
    multitask_strategy: (raw.multitask_strategy ?? "reject") as Run["multitask_strategy"],
  };
}

/** Wire JSON of a value that should be an object; anything else becomes {}. */
function object(value: unknown): Record<string, unknown> {
  if (value == null) return {};
  const json = toWireJson(value);
  return isObject(json) ? json : {};
}

function iso(value: unknown): string {
  const date = value instanceof Date ? value : typeof value === "string" || typeof value === "number" ? new Date(value) : new Date();
  return Number.isNaN(date.getTime()) ? new Date().toISOString() : date.toISOString();
}
