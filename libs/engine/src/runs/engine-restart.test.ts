import { describe, expect, it } from "vitest";
import { drivers } from "@agent-server/testing";
import { eventually, newThread, startEngine } from "../testing/harness.js";

describe.each(drivers.filter((d) => d.name !== "memory"))("engine restart on $name", (driver) => {
  it("picks up pending runs after the process restarts (storage reopened, new engine)", async () => {
    const opened = await driver.open();
    try {
      const before = await startEngine(opened.storage, { workers: 0 });
      const threadId = await newThread(opened.storage);
      const first = await before.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "a" }] } }, { threadId });
      const second = await before.createRun(
        { assistant_id: "echo", input: { messages: [{ role: "user", content: "b" }] }, multitask_strategy: "enqueue" },
        { threadId },
      );
      await before.stop(0);
      expect((await opened.storage.runs.get(first.run_id))?.status).toBe("pending");

      const storage = await opened.reopen!();
      const after = await startEngine(storage);
      try {
        expect((await after.waitRun(second.run_id)).status).toBe("success");
        expect((await storage.runs.get(first.run_id))?.status).toBe("success");
        const values = (await storage.threads.get(threadId))?.values as { messages: Array<{ content: string }> };
        expect(values.messages.map((m) => m.content)).toEqual(["a", "echo: a", "b", "echo: b"]);
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("puts a run left running by a dead worker back in the queue once its lease ends: it completes, never running forever", async () => {
    const opened = await driver.open();
    try {
      const before = await startEngine(opened.storage, { workers: 0 });
      const threadId = await newThread(opened.storage);
      const run = await before.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "a" }] } }, { threadId });
      await before.stop(0);
      // A worker of a process that then died: it claimed the run and never came back. Its owner names no
      // process of this host, so only the lease's end tells it is gone.
      const claimed = await opened.storage.runs.claimNext({ owner: "dead-process", leaseMs: 300 });
      expect(claimed?.run.run_id).toBe(run.run_id);

      const storage = await opened.reopen!();
      const after = await startEngine(storage, { leaseMs: 300 });
      try {
        expect((await after.waitRun(run.run_id)).status).toBe("success");
        // It never wrote a checkpoint: attempt 2 started from its input, applied once.
        const values = (await storage.threads.get(threadId))?.values as { messages: Array<{ content: string }> };
        expect(values.messages.map((m) => m.content)).toEqual(["a", "echo: a"]);
        expect((await storage.threads.get(threadId))?.status).toBe("idle");
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });
});

describe.each(drivers)("engine shutdown on $name", (driver) => {
  it("lets running runs finish within the grace period, then settles the rest as interrupted", async () => {
    const opened = await driver.open();
    try {
      const engine = await startEngine(opened.storage);
      const quick = await engine.createRun({ assistant_id: "slow", input: { delayMs: 50 } }, { threadId: await newThread(opened.storage) });
      const long = await engine.createRun(
        { assistant_id: "slow", input: { delayMs: 5000 } },
        { threadId: await newThread(opened.storage) },
      );
      await eventually(async () => (await opened.storage.runs.get(long.run_id))?.status === "running");
      await engine.stop(400);
      expect((await opened.storage.runs.get(quick.run_id))?.status).toBe("success");
      expect((await opened.storage.runs.get(long.run_id))?.status).toBe("interrupted");
      await expect(engine.createRun({ assistant_id: "echo" })).rejects.toThrow(/not admitting/);
    } finally {
      await opened.dispose();
    }
  });
});
