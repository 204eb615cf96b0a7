import { afterEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { newThread, startEngine } from "../../test/support/harness.js";

/**
 * A run due now, admitted while a worker of this process is free, is inserted claimed by that worker
 * (`RunRepo.create`'s `claim`) and executes without passing through the queue (`claimNext`); any other is
 * queued as before.
 */
describe.each(drivers)("runs claimed by their admission ($name)", (driver) => {
  let engine: Engine | undefined;
  let dispose: () => Promise<void> = async () => undefined;

  afterEach(async () => {
    await engine?.stop(0);
    await dispose();
  });

  async function open(workers: number) {
    const opened = await driver.open();
    dispose = opened.dispose;
    const fromQueue: string[] = [];
    const runs = Object.create(opened.storage.runs) as Storage["runs"];
    runs.claimNext = async (options) => {
      const claimed = await opened.storage.runs.claimNext(options);
      if (claimed) fromQueue.push(claimed.run.run_id);
      return claimed;
    };
    const storage = Object.assign(Object.create(opened.storage) as Storage, { runs });
    engine = await startEngine(storage, { workers });
    return { storage, engine, fromQueue };
  }

  it("a run on an idle thread executes without the queue", async () => {
    const { storage, engine, fromQueue } = await open(2);
    const threadId = await newThread(storage);
    const run = await engine.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } }, { threadId });
    expect((await engine.waitRun(run.run_id)).status).toBe("success");
    const stateless = await engine.createRun({ assistant_id: "echo", input: { messages: [] } });
    expect((await engine.waitRun(stateless.run_id)).status).toBe("success");
    expect(fromQueue).toEqual([]);
  });

  it("a run behind another of its thread, a deferred run, and one admitted with every worker busy go through the queue", async () => {
    const { storage, engine, fromQueue } = await open(1);
    const threadId = await newThread(storage);
    const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 150 } }, { threadId });
    const behind = await engine.createRun({ assistant_id: "slow", input: { delayMs: 1 }, multitask_strategy: "enqueue" }, { threadId });
    const otherThread = await engine.createRun({ assistant_id: "slow", input: { delayMs: 1 } }, { threadId: await newThread(storage) });
    const deferred = await engine.createRun(
      { assistant_id: "slow", input: { delayMs: 1 }, after_seconds: 0.05 },
      { threadId: await newThread(storage) },
    );
    for (const run of [first, behind, otherThread, deferred]) expect((await engine.waitRun(run.run_id)).status).toBe("success");
    expect(fromQueue).not.toContain(first.run_id);
    expect(new Set(fromQueue)).toEqual(new Set([behind.run_id, otherThread.run_id, deferred.run_id]));
  });
});
