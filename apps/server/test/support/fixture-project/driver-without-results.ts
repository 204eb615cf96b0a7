import type { RunRepo, Storage, StorageOpenOptions, ThreadRepo } from "@agent-server/core";
import { createMemoryStorage } from "@agent-server/storage-memory";

/** The optional members this driver leaves out: the A2A result methods. */
const ABSENT = new Set<PropertyKey>(["recordResult", "getResult"]);
/** And, as a driver written before it existed, `storesValuesAt`: the engine writes thread values to it. */
const ABSENT_FROM_THREADS = new Set<PropertyKey>(["storesValuesAt"]);

/**
 * A custom driver as a user writes one (`--storage ./driver-without-results.ts:createStorage`, or
 * langgraph.json `storage.path`): the memory driver without the optional `RunRepo.recordResult` /
 * `getResult`, and without the optional `pushConfigs` and `ThreadRepo.storesValuesAt`; it ignores
 * `RunRepo.create`'s `claim`. The LangGraph API works on it; A2A refuses new messages before it creates anything.
 */
export function createStorage(_options: StorageOpenOptions): Storage {
  const memory = createMemoryStorage();
  // Absent, not undefined-valued: `"recordResult" in runs` is false, as for a driver that never had it.
  // `create` drops `claim` (an option it predates): its runs are inserted pending, for the claim loop.
  const create: RunRepo["create"] = (input, options) => {
    const { claim: _claim, ...rest } = options ?? {};
    return memory.runs.create(input, rest);
  };
  const runs = new Proxy(memory.runs, {
    get: (target, key) => (key === "create" ? create : ABSENT.has(key) ? undefined : bound(target, Reflect.get(target, key, target))),
    has: (target, key) => !ABSENT.has(key) && Reflect.has(target, key),
  }) as RunRepo;
  const threads = new Proxy(memory.threads, {
    get: (target, key) => (ABSENT_FROM_THREADS.has(key) ? undefined : bound(target, Reflect.get(target, key, target))),
    has: (target, key) => !ABSENT_FROM_THREADS.has(key) && Reflect.has(target, key),
  }) as ThreadRepo;
  return {
    kind: "memory-without-results",
    assistants: memory.assistants,
    threads,
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
