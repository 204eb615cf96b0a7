import { afterEach, describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import { newThreadSaver } from "./new-thread-saver.js";

const hi = { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } };

/**
 * A run whose thread its own admission created starts without reading the thread's latest checkpoint
 * (there is none); every other run reads it, and the thread's history is what LangGraph would have made.
 */
describe.each(drivers)("a run on a thread its admission created ($name)", (driver) => {
  let engine: Engine | undefined;
  let dispose: () => Promise<void> = async () => undefined;

  afterEach(async () => {
    await engine?.stop(0);
    await dispose();
  });

  /** The driver's storage, with the threads whose latest root checkpoint was read recorded. */
  async function open() {
    const opened = await driver.open();
    dispose = opened.dispose;
    const latestRead: string[] = [];
    const saver = opened.storage.checkpointer;
    const checkpointer = new Proxy(saver, {
      get(target, property) {
        if (property !== "getTuple") return Reflect.get(target, property, target);
        return (config: RunnableConfig) => {
          const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable ?? {};
          if (!checkpoint_ns && checkpoint_id === undefined) latestRead.push(String(thread_id));
          return target.getTuple(config);
        };
      },
    });
    const storage = Object.assign(Object.create(opened.storage) as Storage, { checkpointer });
    engine = await startEngine(storage, { workers: 2 });
    return { storage, engine, latestRead };
  }

  async function messagesOf(storage: Storage, threadId: string): Promise<string[]> {
    const tuple = await storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    const messages = (tuple?.checkpoint.channel_values.messages ?? []) as { content: unknown }[];
    return messages.map((message) => String(message.content));
  }

  it("a stateless run and a run on a thread the caller created in the same call read no checkpoint", async () => {
    const { storage, engine, latestRead } = await open();
    const stateless = await engine.createRun(hi);
    expect((await engine.waitRun(stateless.run_id)).status).toBe("success");
    const thread = await storage.threads.create({ thread_id: crypto.randomUUID() });
    const run = await engine.createRun(hi, { threadId: thread.thread_id, loaded: { thread, newThread: true } });
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
    expect(latestRead.filter((id) => id === stateless.thread_id || id === thread.thread_id)).toEqual([]);
    expect(await messagesOf(storage, thread.thread_id)).toEqual(["hi", "echo: hi"]);
  });

  it("a run on a thread that existed before reads its latest checkpoint and continues it", async () => {
    const { storage, engine, latestRead } = await open();
    const threadId = await newThread(storage);
    for (const content of ["one", "two"]) {
      const run = await engine.createRun({ ...hi, input: { messages: [{ role: "user", content }] } }, { threadId });
      expect((await engine.waitRun(run.run_id)).status).toBe("success");
    }
    expect(latestRead.filter((id) => id === threadId).length).toBeGreaterThanOrEqual(2);
    expect(await messagesOf(storage, threadId)).toEqual(["one", "echo: one", "two", "echo: two"]);
  });
});

describe("newThreadSaver", () => {
  it("answers only the first read, of the root namespace's latest checkpoint; the rest is the saver's own", async () => {
    const saver = new MemorySaver();
    const threadId = crypto.randomUUID();
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
    const written = await saver.put(
      config,
      { v: 4, id: "1f0-a", ts: new Date().toISOString(), channel_values: { x: 1 }, channel_versions: { x: 1 }, versions_seen: {} },
      { source: "input", step: -1, parents: {} },
    );
    const lent = newThreadSaver(saver);
    expect(await lent.getTuple(config)).toBeUndefined();
    expect((await lent.getTuple(config))?.checkpoint.id).toBe("1f0-a");
    expect((await lent.getTuple(written))?.checkpoint.id).toBe("1f0-a");
    // Writes land in the saver itself (`this` is the saver, not the proxy).
    await lent.putWrites(written, [["x", 2]], "task-1");
    expect((await saver.getTuple(written))?.pendingWrites).toEqual([["task-1", "x", 2]]);
    expect(lent.getNextVersion(1)).toBe(saver.getNextVersion(1));
  });

  it("a first read of a subgraph namespace or of a named checkpoint goes to the saver", async () => {
    const saver = new MemorySaver();
    let reads = 0;
    const counted = new Proxy(saver, {
      get: (target, property) =>
        property === "getTuple" ? (c: RunnableConfig) => (reads++, target.getTuple(c)) : Reflect.get(target, property, target),
    });
    await newThreadSaver(counted).getTuple({ configurable: { thread_id: "t", checkpoint_ns: "child:1" } });
    await newThreadSaver(counted).getTuple({ configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: "1f0-a" } });
    expect(reads).toBe(2);
  });
});
