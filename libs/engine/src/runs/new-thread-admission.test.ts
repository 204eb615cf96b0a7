import { afterEach, describe, expect, it } from "vitest";
import { ConflictError, ThreadExistsError, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { startEngine } from "../../test/support/harness.js";

/**
 * A thread admission creates for its run (a stateless run, `if_not_exists: "create"`, a caller's
 * `createThread`) is written with the run in one driver call (`RunRepo.createWithThread`), already busy when
 * the run starts at once; on a driver without that call, in two writes as before. Either way nothing is left
 * behind when the run cannot be inserted.
 */
describe.each(drivers)("threads created with their run at admission ($name)", (driver) => {
  let engine: Engine | undefined;
  let dispose: () => Promise<void> = async () => undefined;

  afterEach(async () => {
    await engine?.stop(0);
    engine = undefined;
    await dispose();
  });

  /**
   * The driver, counting thread and run writes; `withoutCreateWithThread`: as a driver that predates it.
   * `beforeHeader`: called when admission reads a thread's header (to create it "meanwhile").
   */
  async function open(
    options: { withoutCreateWithThread?: boolean; beforeHeader?: (storage: Storage, threadId: string) => Promise<void> } = {},
  ) {
    const opened = await driver.open();
    dispose = opened.dispose;
    const calls = { threadCreates: 0, runCreates: 0, createsWithThread: 0 };
    const runs = Object.create(opened.storage.runs) as Storage["runs"];
    runs.create = (...args) => {
      calls.runCreates += 1;
      return opened.storage.runs.create(...args);
    };
    if (options.withoutCreateWithThread) runs.createWithThread = undefined;
    else {
      runs.createWithThread = (...args) => {
        calls.createsWithThread += 1;
        return opened.storage.runs.createWithThread!(...args);
      };
    }
    const threads = Object.create(opened.storage.threads) as Storage["threads"];
    threads.create = (...args) => {
      calls.threadCreates += 1;
      return opened.storage.threads.create(...args);
    };
    const getHeader = opened.storage.threads.getHeader?.bind(opened.storage.threads);
    threads.getHeader = async (threadId) => {
      const header = await (getHeader ? getHeader(threadId) : opened.storage.threads.get(threadId));
      if (!header && options.beforeHeader) await options.beforeHeader(opened.storage, threadId);
      return header;
    };
    const storage = Object.assign(Object.create(opened.storage) as Storage, { runs, threads });
    engine = await startEngine(storage, { workers: 2 });
    return { storage, engine, calls };
  }

  for (const withoutCreateWithThread of [false, true]) {
    const how = withoutCreateWithThread ? "two writes (a driver without createWithThread)" : "one write";
    const writes = withoutCreateWithThread
      ? { threadCreates: 1, runCreates: 1, createsWithThread: 0 }
      : { threadCreates: 0, runCreates: 0, createsWithThread: 1 };

    it(`a stateless run: its temporary thread in ${how}, busy while the run executes, deleted at the end`, async () => {
      const { storage, engine, calls } = await open({ withoutCreateWithThread });
      const run = await engine.createRun({ assistant_id: "slow", input: { delayMs: 200 }, on_completion: "keep", metadata: { who: "me" } });
      expect(calls).toEqual(writes);
      const thread = await storage.threads.get(run.thread_id);
      expect(thread).toMatchObject({ status: "busy", metadata: { graph_id: "slow", who: "me" } });
      expect((await engine.waitRun(run.run_id)).status).toBe("success");
      expect((await storage.threads.get(run.thread_id))!.status).toBe("idle");
      const deleted = await engine.createRunAndWait({ assistant_id: "echo", input: { messages: [] } });
      expect(deleted.end.status).toBe("success");
      expect(await storage.threads.get(deleted.run.thread_id)).toBeNull();
    });

    it(`if_not_exists "create": the thread in ${how} with the graph's metadata, busy while the run executes`, async () => {
      const { storage, engine, calls } = await open({ withoutCreateWithThread });
      const threadId = crypto.randomUUID();
      const run = await engine.createRun({ assistant_id: "slow", input: { delayMs: 200 }, if_not_exists: "create" }, { threadId });
      expect(calls).toEqual(writes);
      expect(await storage.threads.get(threadId)).toMatchObject({ status: "busy", metadata: { graph_id: "slow" } });
      expect((await engine.waitRun(run.run_id)).status).toBe("success");
      expect((await storage.threads.get(threadId))!.status).toBe("idle");
    });

    it(`a caller's createThread: written in ${how}; a run id that is taken leaves no thread behind`, async () => {
      const { storage, engine, calls } = await open({ withoutCreateWithThread });
      const threadId = crypto.randomUUID();
      const createThread = { thread_id: threadId, metadata: { owner: "alice" } };
      const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId, createThread });
      expect(calls).toEqual(writes);
      expect((await engine.waitRun(run.run_id)).status).toBe("success");
      expect(await storage.threads.get(threadId)).toMatchObject({ metadata: { owner: "alice" }, status: "idle" });

      const again = crypto.randomUUID();
      await expect(
        engine.createRun(
          { assistant_id: "echo", input: { messages: [] } },
          { threadId: again, runId: run.run_id, createThread: { thread_id: again } },
        ),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await storage.threads.get(again)).toBeNull();
      const stateless = engine.createRun({ assistant_id: "echo", input: { messages: [] } }, { runId: run.run_id });
      await expect(stateless).rejects.toBeInstanceOf(ConflictError);
      expect(await storage.threads.count({ metadata: { graph_id: "echo" } })).toBe(0);
    });
  }

  it("the ids it mints (a stateless run's thread, a run the caller names no id for) are UUIDv7, in the order of creation", async () => {
    const { engine } = await open();
    const runs = [];
    for (let i = 0; i < 5; i++) {
      runs.push((await engine.createRunAndWait({ assistant_id: "echo", input: { messages: [] }, on_completion: "keep" })).run);
    }
    for (const ids of [runs.map((run) => run.run_id), runs.map((run) => run.thread_id)]) {
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect([...ids].sort()).toEqual(ids);
    }
  });

  it("a caller's createThread whose id is taken: ThreadExistsError, the existing thread and its runs untouched", async () => {
    const { storage, engine } = await open();
    const existing = await storage.threads.create({ thread_id: crypto.randomUUID(), metadata: { mine: true } });
    const before = await storage.threads.get(existing.thread_id);
    await expect(
      engine.createRun(
        { assistant_id: "echo", input: { messages: [] } },
        { threadId: existing.thread_id, createThread: { thread_id: existing.thread_id, metadata: { theirs: true } } },
      ),
    ).rejects.toBeInstanceOf(ThreadExistsError);
    expect(await storage.threads.get(existing.thread_id)).toEqual(before);
    expect(await storage.runs.search({ thread_id: existing.thread_id })).toEqual([]);
  });

  it('if_not_exists "create" with the thread created meanwhile: the run is admitted on that thread, with its config', async () => {
    const { storage, engine, calls } = await open({
      // Another request creates the thread between admission's read and its write.
      beforeHeader: async (s, threadId) => {
        await s.threads.create({ thread_id: threadId, metadata: { first: true }, config: { configurable: { model: "theirs" } } });
      },
    });
    const threadId = crypto.randomUUID();
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, if_not_exists: "create" }, { threadId });
    expect(calls.createsWithThread).toBe(1);
    expect(calls.runCreates).toBe(1);
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
    expect(await storage.threads.get(threadId)).toMatchObject({ metadata: { first: true } });
    const stored = await storage.runs.get(run.run_id);
    expect((stored!.kwargs as { config: { configurable: Record<string, unknown> } }).config.configurable).toMatchObject({
      model: "theirs",
    });
  });
});
