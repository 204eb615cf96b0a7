import { afterEach, describe, expect, it } from "vitest";
import { MemorySaver, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import type { CompiledGraph } from "../graphs/types.js";
import { echoGraph } from "../../test/support/graphs.js";
import { runSaver, savesAsynchronously } from "./run-saver.js";

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

describe("runSaver on a new thread", () => {
  it("answers only the first read, of the root namespace's latest checkpoint; the rest is the saver's own", async () => {
    const saver = new MemorySaver();
    const threadId = crypto.randomUUID();
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
    const written = await saver.put(
      config,
      { v: 4, id: "1f0-a", ts: new Date().toISOString(), channel_values: { x: 1 }, channel_versions: { x: 1 }, versions_seen: {} },
      { source: "input", step: -1, parents: {} },
    );
    const lent = runSaver(saver, { newThread: true, asyncDurability: false }).saver;
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
    await runSaver(counted, { newThread: true, asyncDurability: false }).saver.getTuple({
      configurable: { thread_id: "t", checkpoint_ns: "child:1" },
    });
    await runSaver(counted, { newThread: true, asyncDurability: false }).saver.getTuple({
      configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: "1f0-a" },
    });
    expect(reads).toBe(2);
  });
});

/** The SQLite driver's connection, with every transaction it opens counted. */
function countTransactions(storage: Storage): { count: () => number } {
  const db = (storage as unknown as { db: { transaction: (fn: () => unknown) => unknown } }).db;
  let opened = 0;
  const transaction = db.transaction.bind(db);
  db.transaction = (fn) => {
    opened += 1;
    return transaction(fn);
  };
  return { count: () => opened };
}

const sqlite = drivers.find((driver) => driver.name === "sqlite")!;

/**
 * With "async" durability over SQLite's group commit, a run's checkpoint writes resolve once queued, so
 * LangGraph's chain of saves no longer waits for a commit per step; what the run tells still comes after
 * they are durable, and a write that fails as it commits fails the run.
 */
describe("a run's checkpoint writes in the commit queue (sqlite)", () => {
  let engine: Engine | undefined;
  let dispose: () => Promise<void> = async () => undefined;

  afterEach(async () => {
    await engine?.stop(0);
    await dispose();
  });

  async function open(graphs: Record<string, CompiledGraph> = {}) {
    const opened = await sqlite.open();
    dispose = opened.dispose;
    // No polling while a run is counted: the runs here are claimed by their own admission.
    const quiet = { pollMs: 60_000, outbox: { pollMs: 60_000, backoffMs: 50, maxBackoffMs: 200, maxAttempts: 5, timeoutMs: 2000 } };
    engine = await startEngine(opened.storage, { workers: 2, ...quiet }, graphs);
    return { storage: opened.storage, engine };
  }

  const runOnNewThread = (engine: Engine, assistantId = "echo") => {
    const threadId = crypto.randomUUID();
    return engine.createRunAndWait({ ...hi, assistant_id: assistantId }, { threadId, createThread: { thread_id: threadId } });
  };

  it("a run on a new thread commits twice (admission; its steps with its settlement); with sync durability once a step", async () => {
    const { storage, engine } = await open({ "echo-sync": echoGraph.withConfig({ durability: "sync" }) as CompiledGraph });
    await runOnNewThread(engine);
    await runOnNewThread(engine, "echo-sync");
    const transactions = countTransactions(storage);

    const before = transactions.count();
    const { run, end } = await runOnNewThread(engine);
    expect(end.status).toBe("success");
    expect(transactions.count() - before).toBe(2);
    const tuple = await storage.checkpointer.getTuple({ configurable: { thread_id: run.thread_id, checkpoint_ns: "" } });
    expect((tuple?.checkpoint.channel_values.messages as { content: string }[]).map((m) => m.content)).toEqual(["hi", "echo: hi"]);

    const sync = transactions.count();
    expect((await runOnNewThread(engine, "echo-sync")).end.status).toBe("success");
    expect(transactions.count() - sync).toBe(5);
  });
});

const postgres = drivers.find((driver) => driver.name === "postgres");
const sqlDrivers = postgres ? [sqlite, postgres] : [sqlite];

/** A trigger that refuses a thread's second checkpoint (SQLite: a TEMP trigger on the driver's connection). */
async function refuseSecondCheckpoint(storage: unknown, driver: string): Promise<void> {
  if (driver === "sqlite") {
    (storage as { db: { exec(sql: string): void } }).db.exec(
      `CREATE TEMP TRIGGER refuse_second BEFORE INSERT ON checkpoints
       WHEN (SELECT count(*) FROM checkpoints WHERE thread_id = NEW.thread_id) = 1
       BEGIN SELECT RAISE(ABORT, 'second checkpoint refused'); END`,
    );
    return;
  }
  const { pool, schema } = storage as { pool: { query(sql: string): Promise<unknown> }; schema: string };
  await pool.query(`CREATE FUNCTION "${schema}".refuse_second() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (SELECT count(*) FROM "${schema}".checkpoints WHERE thread_id = NEW.thread_id) = 1 THEN
        RAISE EXCEPTION 'second checkpoint refused';
      END IF;
      RETURN NEW;
    END $$`);
  await pool.query(
    `CREATE TRIGGER refuse_second BEFORE INSERT ON "${schema}".checkpoints FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_second()`,
  );
}

describe.each(sqlDrivers)("a run's queued checkpoint write that fails ($name)", (driver) => {
  it("ends the run in error; the thread keeps nothing past it", async () => {
    const opened = await driver.open();
    const quiet = { pollMs: 60_000, outbox: { pollMs: 60_000, backoffMs: 50, maxBackoffMs: 200, maxAttempts: 5, timeoutMs: 2000 } };
    const engine = await startEngine(opened.storage, { workers: 2, ...quiet });
    try {
      const storage = opened.storage;
      await refuseSecondCheckpoint(storage, driver.name);
      const threadId = crypto.randomUUID();
      const { run, end } = await engine.createRunAndWait(
        { ...hi, assistant_id: "echo" },
        { threadId, createThread: { thread_id: threadId } },
      );
      expect(end.status).toBe("error");
      expect((await storage.runs.get(run.run_id))?.status).toBe("error");
      const history = [];
      for await (const tuple of storage.checkpointer.list({ configurable: { thread_id: run.thread_id } })) history.push(tuple);
      // Nothing past the refused write; SQLite applies a failed batch's writes one by one (the first is kept),
      // on PostgreSQL the writes of a turn are one statement (kept or not together).
      const steps = history.map((tuple) => tuple.metadata?.step);
      if (driver.name === "sqlite") expect(steps).toEqual([-1]);
      else expect(steps.filter((step) => step === undefined || step >= 0)).toEqual([]);
    } finally {
      await engine.stop(0);
      await opened.dispose();
    }
  });
});

describe.each(sqlDrivers)("an erase of a run whose checkpoint writes are still queued ($name)", (driver) => {
  it("waits for them, so the erased run leaves no checkpoint behind", async () => {
    const opened = await driver.open();
    const engine = await startEngine(opened.storage, { workers: 2 });
    try {
      const storage = opened.storage;
      const threadId = crypto.randomUUID();
      const { run } = await storage.runs.createWithThread!(
        { thread_id: threadId },
        {
          run_id: crypto.randomUUID(),
          thread_id: threadId,
          assistant_id: (await storage.assistants.search({ graph_id: "echo" }))[0]!.assistant_id,
        },
        { claim: { owner: "test", leaseMs: 60_000 } },
      ).then((created) => ({ run: created }));
      const lent = runSaver(storage.checkpointer, { newThread: true, asyncDurability: true });
      const config = { configurable: { thread_id: threadId, checkpoint_ns: "", run_id: run.run_id } };
      // Queued, not yet committed (the queue commits at the end of this turn).
      await lent.saver.put(
        config,
        { v: 4, id: "1f0-a", ts: new Date().toISOString(), channel_values: { x: 1 }, channel_versions: { x: 1 }, versions_seen: {} },
        { source: "input", step: -1, parents: {} },
        {},
      );
      const settlement = (engine as unknown as { settlement: { settle: (...args: unknown[]) => Promise<unknown> } }).settlement;
      await settlement.settle(run, { kind: "success", result: {} }, undefined, {
        captureResult: false,
        rollbackRequested: () => true,
        owner: "test",
        queued: { chain: lent.chain, committed: lent.committed },
      });
      await lent.committed();
      expect(await storage.runs.get(run.run_id)).toBeNull();
      expect(await storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } })).toBeUndefined();
    } finally {
      await engine.stop(0);
      await opened.dispose();
    }
  });
});

describe("savesAsynchronously", () => {
  it("is true for LangGraph's default and 'exit', false where the graph or a subgraph it declares asks for 'sync'", () => {
    expect(savesAsynchronously(echoGraph as CompiledGraph)).toBe(true);
    expect(savesAsynchronously(echoGraph.withConfig({ durability: "exit" }) as CompiledGraph)).toBe(true);
    expect(savesAsynchronously(echoGraph.withConfig({ durability: "sync" }) as CompiledGraph)).toBe(false);
    const syncChild = new StateGraph(MessagesAnnotation)
      .addNode("child", echoGraph.withConfig({ durability: "sync" }))
      .addEdge("__start__", "child")
      .compile();
    expect(savesAsynchronously(syncChild as CompiledGraph)).toBe(false);
  });
});
