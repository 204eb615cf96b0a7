import type { Storage } from "@agent-server/core";
import { createMemoryStorage, MemoryState, MemoryStorage } from "@agent-server/storage-memory";
import { describe, expect, it } from "vitest";
import { Engine } from "../engine.js";
import { AssistantCache } from "./assistant-cache.js";

/** A memory storage whose assistant reads are counted. */
async function countedStorage(): Promise<{ storage: Storage; reads: () => number }> {
  const storage = createMemoryStorage();
  await storage.assistants.create({ assistant_id: "a", graph_id: "echo", config: { configurable: { tone: "dry" } } });
  let reads = 0;
  const get = storage.assistants.get.bind(storage.assistants);
  storage.assistants.get = (id: string) => {
    reads += 1;
    return get(id);
  };
  return { storage, reads: () => reads };
}

describe("AssistantCache", () => {
  it("while usable, answers repeated reads from memory with copies, and reads again after any write of this process", async () => {
    const { storage, reads } = await countedStorage();
    const cache = new AssistantCache(storage, () => true);
    const first = await cache.get("a");
    first!.config.configurable!.tone = "changed by the caller";
    expect((await cache.get("a"))?.config.configurable?.tone).toBe("dry");
    expect(reads()).toBe(1);
    await storage.assistants.update("a", { config: { configurable: { tone: "warm" } } });
    expect((await cache.get("a"))?.config.configurable?.tone).toBe("warm");
    expect(reads()).toBe(2);
    await storage.assistants.delete("a");
    expect(await cache.get("a")).toBeNull();
    expect(await cache.get("a")).toBeNull(); // absence is never kept
    expect(reads()).toBe(4);
  });

  it("reads the database every time while not usable (another engine listens), and forgets what it held", async () => {
    const { storage, reads } = await countedStorage();
    let alone = true;
    const cache = new AssistantCache(storage, () => alone);
    await cache.get("a");
    alone = false;
    await cache.get("a");
    await cache.get("a");
    alone = true;
    await cache.get("a");
    expect(reads()).toBe(4);
  });

  it("keeps an entry one second at most, and nothing read while a write was under way", async () => {
    const { storage, reads } = await countedStorage();
    let now = 0;
    const cache = new AssistantCache(
      storage,
      () => true,
      () => now,
    );
    await cache.get("a");
    now = 999;
    await cache.get("a");
    expect(reads()).toBe(1);
    now = 1000;
    await cache.get("a");
    expect(reads()).toBe(2);
    // A read that overlaps an update: its answer is not kept, the next read goes to the storage.
    now = 5000;
    const [read] = await Promise.all([cache.get("a"), storage.assistants.update("a", { name: "renamed" })]);
    expect(read).not.toBeNull();
    expect((await cache.get("a"))?.name).toBe("renamed");
    expect(reads()).toBe(4);
  });

  it("several caches over one storage all hear its writes; a frozen storage is never cached", async () => {
    const { storage, reads } = await countedStorage();
    const one = new AssistantCache(storage, () => true);
    const two = new AssistantCache(storage, () => true);
    await Promise.all([one.get("a"), two.get("a")]);
    await storage.assistants.update("a", { name: "again" });
    expect((await one.get("a"))?.name).toBe("again");
    expect((await two.get("a"))?.name).toBe("again");
    expect(reads()).toBe(4);

    const frozen = await countedStorage();
    Object.freeze(frozen.storage.assistants);
    const never = new AssistantCache(frozen.storage, () => true);
    await never.get("a");
    await never.get("a");
    expect(frozen.reads()).toBe(2);
  });
});

describe("Engine.assistants over one database", () => {
  it("caches while the engine is alone; once another engine says hello, it reads what that one wrote", async () => {
    const state = new MemoryState();
    const here = new MemoryStorage(state);
    const there = new MemoryStorage(state);
    await here.assistants.create({ assistant_id: "a", graph_id: "echo", name: "first" });
    const first = new Engine({ storage: here });
    await first.start();
    expect(first.signals.alone).toBe(true);
    expect((await first.assistants.get("a"))?.name).toBe("first");
    // Written through another connection to the same data, unseen by the first engine's cache.
    await there.assistants.update("a", { name: "second" });
    expect((await first.assistants.get("a"))?.name).toBe("first");

    const second = new Engine({ storage: there });
    await second.start();
    await new Promise((resolve) => setImmediate(resolve));
    expect(first.signals.alone).toBe(false);
    expect((await first.assistants.get("a"))?.name).toBe("second");
    await there.assistants.update("a", { name: "third" });
    expect((await first.assistants.get("a"))?.name).toBe("third");
    await Promise.all([first.stop(0), second.stop(0)]);
  });
});
