import { afterEach, describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { canPrepareCheckpointWrites, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import { HeldCheckpointWrites } from "./run-checkpoints.js";

const newThreadSaver = (saver: BaseCheckpointSaver) => new HeldCheckpointWrites(saver).forRun("t", { newThread: true })!.saver;

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

describe("a new thread's lent saver", () => {
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

function checkpointAt(id: string, x: number) {
  return { v: 4, id, ts: new Date().toISOString(), channel_values: { x }, channel_versions: { x: String(x) }, versions_seen: {} };
}

const inputMetadata = { source: "input" as const, step: -1, parents: {} };

/**
 * A run's checkpoint writes are held and committed together (SQLite and PostgreSQL savers prepare writes;
 * the memory saver does not, and a run gets it as it is).
 */
describe.each(drivers)("held checkpoint writes ($name)", (driver) => {
  let dispose: () => Promise<void> = async () => undefined;
  afterEach(() => dispose());

  async function open(holdMs = 60_000) {
    const opened = await driver.open();
    dispose = opened.dispose;
    const saver = opened.storage.checkpointer;
    const held = new HeldCheckpointWrites(saver, holdMs);
    const config = { configurable: { thread_id: crypto.randomUUID(), checkpoint_ns: "" } };
    return { saver, held, config };
  }

  it("holds a run's writes until a read of its thread, the hold window or the run's end, then commits them", async () => {
    const { saver, held, config } = await open();
    const run = held.forRun(config.configurable.thread_id, { newThread: false });
    if (!canPrepareCheckpointWrites(saver)) {
      expect(run).toBeUndefined();
      return;
    }
    const first = await run!.saver.put(config, checkpointAt("1f0-a", 1), inputMetadata, { x: "1" });
    await run!.saver.putWrites(first, [["x", 2]], "task-1");
    expect(await saver.getTuple(config)).toBeUndefined();
    // A reader through the engine's saver sees it: the read commits what the thread's runs hold first.
    const read = await held.reading.getTuple(config);
    expect(read?.checkpoint.id).toBe("1f0-a");
    expect(read?.pendingWrites).toEqual([["task-1", "x", 2]]);
    const second = await run!.saver.put(first, checkpointAt("1f0-b", 2), { source: "loop", step: 0, parents: {} }, { x: "2" });
    expect((await saver.getTuple(config))?.checkpoint.id).toBe("1f0-a");
    // The run's own reads see its writes too (a subgraph reading its namespace, LangGraph's own reads).
    expect((await run!.saver.getTuple(second))?.checkpoint.channel_values).toEqual({ x: 2 });
    await run!.saver.put(second, checkpointAt("1f0-c", 3), { source: "loop", step: 1, parents: {} }, { x: "3" });
    await run!.close();
    expect((await saver.getTuple(config))?.checkpoint.id).toBe("1f0-c");
    const history = [];
    for await (const tuple of saver.list(config)) history.push(tuple.checkpoint.id);
    expect(history).toEqual(["1f0-c", "1f0-b", "1f0-a"]);
    // Once the graph call has ended, a write (a graph a time limit left running) is not held.
    await run!.saver.put(config, checkpointAt("1f0-d", 4), { source: "loop", step: 2, parents: {} }, { x: "4" });
    await run!.commit();
    expect((await saver.getTuple(config))?.checkpoint.id).toBe("1f0-d");
  });

  it("commits held writes once the hold window has passed, with nobody asking", async () => {
    const { saver, held, config } = await open(20);
    const run = held.forRun(config.configurable.thread_id, { newThread: false });
    if (!run) return expect(canPrepareCheckpointWrites(saver)).toBe(false);
    await run.saver.put(config, checkpointAt("1f0-a", 1), inputMetadata, { x: "1" });
    expect(await saver.getTuple(config)).toBeUndefined();
    expect((await eventually(() => saver.getTuple(config), 2_000)).checkpoint.id).toBe("1f0-a");
  });

  it("a commit that fails fails the run's later writes and its end, as LangGraph's own failed write would", async () => {
    const { saver, config } = await open();
    if (!canPrepareCheckpointWrites(saver))
      return expect(new HeldCheckpointWrites(saver).forRun("t", { newThread: false })).toBeUndefined();
    const refusal = new Error("disk full");
    let refuse = true;
    const failing = new Proxy(saver, {
      get: (target, property) =>
        property === "commitPrepared"
          ? (prepared: never) => (refuse ? Promise.reject(refusal) : target.commitPrepared(prepared))
          : Reflect.get(target, property, target),
    });
    const run = new HeldCheckpointWrites(failing).forRun(config.configurable.thread_id, { newThread: false })!;
    const first = await run.saver.put(config, checkpointAt("1f0-a", 1), inputMetadata, { x: "1" });
    await expect(run.commit()).rejects.toBe(refusal);
    refuse = false;
    await expect(run.saver.putWrites(first, [["x", 2]], "task-1")).rejects.toBe(refusal);
    await expect(run.close()).rejects.toBe(refusal);
    expect(await saver.getTuple(config)).toBeUndefined();
  });
});
