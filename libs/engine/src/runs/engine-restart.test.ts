import { describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";

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
  const slowRun = (engine: Engine, storage: Storage, delayMs: number, stream_mode?: "messages") =>
    newThread(storage).then((threadId) =>
      engine.createRun({ assistant_id: "slow", input: { delayMs }, ...(stream_mode ? { stream_mode } : {}) }, { threadId }),
    );
  const running = (storage: Storage, runId: string) => eventually(async () => (await storage.runs.get(runId))?.status === "running");

  it("lets running runs finish within the grace period, then drains the rest at a step boundary and hands them back", async () => {
    const opened = await driver.open();
    const { storage } = opened;
    try {
      const engine = await startEngine(storage);
      const quick = await slowRun(engine, storage, 50);
      // Two steps of 1 s: the grace period ends inside the first, whose end the drain waits for.
      const long = await slowRun(engine, storage, 1000);
      // The `messages` mode executes through LangGraph's streamEvents: the drain reaches it too.
      const viaEvents = await slowRun(engine, storage, 1000, "messages");
      await running(storage, long.run_id);
      await running(storage, viaEvents.run_id);
      const settled: string[] = [];
      engine.onRunSettled(({ run }) => void settled.push(run.run_id));
      expect(engine.draining).toBe(false);
      const stopped = engine.stop(400, 5000);
      expect(engine.draining).toBe(true);
      await stopped;
      expect((await storage.runs.get(quick.run_id))?.status).toBe("success");
      // Handed back, not ended: nothing of settlement ran for it (no webhook, no push notification).
      expect(settled).not.toContain(long.run_id);
      const handedBack = await storage.runs.get(long.run_id);
      expect(handedBack).toMatchObject({ status: "pending", metadata: { run_attempt: 2 } });
      expect(await storage.runs.get(viaEvents.run_id)).toMatchObject({ status: "pending", metadata: { run_attempt: 2 } });
      expect((await storage.threads.get(long.thread_id))?.status).toBe("busy");
      expect(await storage.runs.listLeases(10)).toEqual([]);
      // The first step's checkpoint was saved before the run stopped.
      const saved = await storage.checkpointer.getTuple({ configurable: { thread_id: long.thread_id, checkpoint_ns: "" } });
      expect(saved?.checkpoint.channel_values).toMatchObject({ steps: [1] });
      await expect(engine.createRun({ assistant_id: "echo" })).rejects.toThrow(/not admitting/);

      // The next process (same storage) resumes it as attempt 2 from that checkpoint: the first step does not run again.
      const next = await startEngine(storage);
      try {
        expect((await next.waitRun(long.run_id)).status).toBe("success");
        expect((await storage.threads.get(long.thread_id))?.values).toMatchObject({ steps: [1, 2] });
        expect((await next.waitRun(viaEvents.run_id)).status).toBe("success");
        expect((await storage.threads.get(viaEvents.thread_id))?.values).toMatchObject({ steps: [1, 2] });
        const last = await storage.checkpointer.getTuple({ configurable: { thread_id: long.thread_id, checkpoint_ns: "" } });
        expect(last?.metadata).toMatchObject({ run_id: long.run_id, run_attempt: 2 });
      } finally {
        await next.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("hand-backs do not count against the attempts a run may lose to dying workers (maxAttempts)", async () => {
    const opened = await driver.open();
    const { storage } = opened;
    try {
      let engine = await startEngine(storage, { maxAttempts: 2 });
      const run = await slowRun(engine, storage, 1500);
      for (let attempt = 1; attempt <= 3; attempt++) {
        await running(storage, run.run_id);
        await engine.stop(0, 0);
        const handedBack = await storage.runs.get(run.run_id);
        expect(handedBack?.status).toBe("pending");
        // A claim already on its way when the stop began may land after it: that run is handed back too
        // (one attempt more), never executed past the stop.
        expect(handedBack?.metadata?.run_attempt).toBeGreaterThan(attempt);
        engine = await startEngine(storage, { maxAttempts: 2 });
      }
      try {
        expect((await engine.waitRun(run.run_id)).status).toBe("success");
      } finally {
        await engine.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("hands back a run still inside a step when the drain timeout ends: its next attempt starts that step over", async () => {
    const opened = await driver.open();
    const { storage } = opened;
    try {
      const engine = await startEngine(storage);
      const long = await slowRun(engine, storage, 1500);
      await running(storage, long.run_id);
      const started = Date.now();
      await engine.stop(100, 200);
      // Aborted mid-step, not waited for.
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await storage.runs.get(long.run_id)).toMatchObject({ status: "pending", metadata: { run_attempt: 2 } });
      expect(await storage.runs.getError(long.run_id)).toBeNull();
      const next = await startEngine(storage);
      try {
        expect((await next.waitRun(long.run_id)).status).toBe("success");
        expect((await storage.threads.get(long.thread_id))?.values).toMatchObject({ steps: [1, 2] });
      } finally {
        await next.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });
});
