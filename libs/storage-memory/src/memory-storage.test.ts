import { describe, expect, it } from "vitest";
import { describeStorageConformance } from "@agent-server/storage-conformance";
import { createMemoryStorage, MemoryStorage } from "./index.js";

// The optional parts this driver has: every one (A2A task results, push configs, the thread lock, signals, TTL sweeps).
const OPTIONAL_PARTS = {
  results: true,
  pushConfigs: true,
  threadLock: true,
  signals: "database" as const,
  ttl: true,
  vectors: true,
  valuesAt: true,
  claimOnCreate: true,
  createWithThread: true,
};

describeStorageConformance("memory", { create: async () => createMemoryStorage() }, OPTIONAL_PARTS);

// Several MemoryStorage instances may share one MemoryState, as connections share a database: this runs
// the suite's cross-connection and reopen tests against the memory driver too.
describeStorageConformance(
  "memory (shared state)",
  {
    create: async () => createMemoryStorage(),
    sibling: async (storage) => new MemoryStorage((storage as MemoryStorage).state),
    reopen: async (storage) => {
      await storage.close();
      return new MemoryStorage((storage as MemoryStorage).state);
    },
  },
  OPTIONAL_PARTS,
);

describe("memory driver specifics", () => {
  it("kind is memory and fresh drivers share nothing", async () => {
    const a = createMemoryStorage();
    const b = createMemoryStorage();
    expect(a.kind).toBe("memory");
    await a.threads.create({ thread_id: "t" });
    expect(await b.threads.get("t")).toBeNull();
  });

  it("recordResult is first-write-wins even when writes interleave with awaits", async () => {
    const s = createMemoryStorage();
    await s.threads.create({ thread_id: "t" });
    await s.runs.create({ run_id: "r", thread_id: "t", assistant_id: "a" });
    const writes = Array.from({ length: 50 }, (_, i) =>
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        await s.runs.recordResult("r", { values: { i } });
      })(),
    );
    await Promise.all(writes);
    expect(await s.runs.getResult("r")).toEqual({ values: { i: 0 } });
  });

  it("checkpoint metadata gets run_id from configurable or config metadata, never overriding an explicit one", async () => {
    const s = createMemoryStorage();
    const checkpoint = { v: 4, id: "1", ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} };
    await s.checkpointer.put(
      { configurable: { thread_id: "t", run_id: "r1" } },
      { ...checkpoint, id: "1" },
      { source: "input", step: -1, parents: {} },
      {},
    );
    await s.checkpointer.put(
      { configurable: { thread_id: "t" }, metadata: { run_id: "r2" } },
      { ...checkpoint, id: "2" },
      { source: "loop", step: 0, parents: {} },
      {},
    );
    await s.checkpointer.put(
      { configurable: { thread_id: "t", run_id: "r3" } },
      { ...checkpoint, id: "3" },
      { source: "loop", step: 1, parents: {}, run_id: "explicit" } as never,
      {},
    );
    await s.checkpointer.put(
      { configurable: { thread_id: "t" } },
      { ...checkpoint, id: "4" },
      { source: "loop", step: 2, parents: {} },
      {},
    );
    const runIds = [];
    for (const id of ["1", "2", "3", "4"]) {
      const tuple = await s.checkpointer.getTuple({ configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: id } });
      runIds.push((tuple!.metadata as Record<string, unknown>).run_id);
    }
    expect(runIds).toEqual(["r1", "r2", "explicit", undefined]);
  });
});
