import type { RunRepo, Storage, StorageOpenOptions } from "@agent-server/core";
import { createMemoryStorage } from "@agent-server/storage-memory";

/** The optional members this driver leaves out: the A2A result methods. */
const ABSENT = new Set<PropertyKey>(["recordResult", "getResult"]);

/**
 * A custom driver as a user writes one (`--storage ./driver-without-results.ts:createStorage`, or
 * langgraph.json `storage.path`): the memory driver without the optional `RunRepo.recordResult` /
 * `getResult`, and without the optional `pushConfigs`. The LangGraph API works on it; A2A refuses new
 * messages before it creates anything.
 */
export function createStorage(_options: StorageOpenOptions): Storage {
  const memory = createMemoryStorage();
  // Absent, not undefined-valued: `"recordResult" in runs` is false, as for a driver that never had it.
  const runs = new Proxy(memory.runs, {
    get: (target, key) => (ABSENT.has(key) ? undefined : bound(target, Reflect.get(target, key, target))),
    has: (target, key) => !ABSENT.has(key) && Reflect.has(target, key),
  }) as RunRepo;
  return {
    kind: "memory-without-results",
    assistants: memory.assistants,
    threads: memory.threads,
    runs,
    store: memory.store,
    crons: memory.crons,
    deliveries: memory.deliveries,
    events: memory.events,
    checkpointer: memory.checkpointer,
    langgraphStore: memory.langgraphStore,
    truncate: (flags) => memory.truncate(flags),
    close: () => memory.close(),
  };
}

function bound(target: object, value: unknown): unknown {
  return typeof value === "function" ? value.bind(target) : value;
}
