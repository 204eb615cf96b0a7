import type { Assistant, Storage } from "@agent-server/core";

/** Longest an entry is answered from memory by default: what a write this process cannot see may stay unseen. */
const TTL_MS = 1000;
/** Entries kept at most (assistants read for admission; the oldest goes first). */
const MAX_ENTRIES = 1000;

/**
 * Assistant reads on the run admission path (an A2A message, `runs.create`), answered from memory while
 * the engine is alone on its database: one statement fewer per run on PostgreSQL (8 -> 7 per A2A send).
 *
 * Exact while alone: every assistant write of this process goes through the storage's repository, whose
 * writing methods this class wraps so that each clears the cache before and after it (a read that
 * overlapped a write keeps nothing). Writers it cannot see are another engine (then `usable` is false and
 * every read goes to the database; the first read after a peer appears clears the cache) and one whose
 * hello has not arrived yet, or whose heartbeats were lost: `ttlMs` bounds how long such a write goes
 * unseen. Where the engine cannot know whether it is alone (SQLite's signals reach no other process), it
 * never caches.
 */
export class AssistantCache {
  private readonly entries = new Map<string, { assistant: Assistant; at: number }>();
  /** Bumped by every clear: a read that began before a write does not store its answer. */
  private generation = 0;
  /** False for a storage whose methods cannot be wrapped (a frozen custom driver): never answered from memory. */
  private readonly observed: boolean;

  constructor(
    private readonly storage: Storage,
    private readonly usable: () => boolean,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = TTL_MS,
  ) {
    this.observed = onAssistantWrites(storage, () => this.clear());
  }

  /** The assistant (a copy the caller may change), or null when there is none (never cached). */
  async get(assistantId: string): Promise<Assistant | null> {
    if (!this.observed || !this.usable()) {
      if (this.entries.size > 0) this.clear();
      return this.storage.assistants.get(assistantId);
    }
    const hit = this.entries.get(assistantId);
    if (hit && this.now() - hit.at < this.ttlMs) return structuredClone(hit.assistant);
    const generation = this.generation;
    const at = this.now();
    const assistant = await this.storage.assistants.get(assistantId);
    if (assistant && generation === this.generation) {
      this.entries.delete(assistantId);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(assistantId, { assistant: structuredClone(assistant), at });
    }
    return assistant;
  }

  private clear(): void {
    this.entries.clear();
    this.generation += 1;
  }
}

type Methods = Record<string, (...args: unknown[]) => Promise<unknown>>;
/** What runs around every assistant write of a storage: each cache's clear (several engines may share one). */
const writeListeners = new WeakMap<Storage, Set<() => void>>();

/**
 * Calls `listener` before and after every assistant write through `storage` (the repository's writing
 * methods and `truncate`, wrapped once per storage object). False when they cannot be wrapped.
 */
function onAssistantWrites(storage: Storage, listener: () => void): boolean {
  let listeners = writeListeners.get(storage);
  if (!listeners) {
    if (Object.isFrozen(storage) || Object.isFrozen(storage.assistants)) return false;
    const all = (listeners = new Set());
    writeListeners.set(storage, all);
    const notify = () => all.forEach((each) => each());
    const wrap = (target: Methods, method: string) => {
      const original = target[method];
      if (typeof original !== "function") return;
      target[method] = async (...args: unknown[]) => {
        notify();
        try {
          return await original.apply(target, args);
        } finally {
          notify();
        }
      };
    };
    for (const method of ["create", "update", "delete", "setLatest"]) wrap(storage.assistants as unknown as Methods, method);
    wrap(storage as unknown as Methods, "truncate");
  }
  listeners.add(listener);
  return true;
}
