import { describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import type { ClaimedRun, Run } from "@agent-server/core";
import { WorkerPool, type ActiveExecution } from "./worker-pool.js";

function pool(workers: number) {
  const executions = new Map<string, ActiveExecution>();
  const finish = new Map<string, () => void>();
  const workerPool = new WorkerPool(
    createMemoryStorage(),
    (claimed, execution) => {
      executions.set(claimed.run.run_id, execution);
      return new Promise<void>((resolve) => finish.set(claimed.run.run_id, resolve));
    },
    () => undefined,
    { workers, leaseMs: 30_000, pollMs: 60_000, owner: "test-owner", onError: () => undefined },
  );
  workerPool.start();
  return { workerPool, executions, finish };
}

const claimed = (runId: string): ClaimedRun => ({ run: { run_id: runId, thread_id: "t" } as Run, attempt: 1, internal: {} });

describe("WorkerPool reservations (runs claimed by their admission)", () => {
  it("reserves only free workers, and a released or finished one is free again", async () => {
    const { workerPool, finish } = pool(2);
    try {
      expect(workerPool.reserve()).toEqual({ owner: "test-owner", leaseMs: 30_000 });
      expect(workerPool.reserve()).toBeDefined();
      expect(workerPool.reserve()).toBeUndefined();
      workerPool.release();
      expect(workerPool.reserve()).toBeDefined();
      workerPool.adopt(claimed("r1"));
      workerPool.adopt(claimed("r2"));
      expect(workerPool.active.size).toBe(2);
      expect(workerPool.reserve()).toBeUndefined();
      finish.get("r1")!();
      await new Promise((resolve) => setImmediate(resolve));
      expect(workerPool.reserve()).toBeDefined();
    } finally {
      for (const done of finish.values()) done();
      await workerPool.stop(0);
    }
  });

  it("a rollback that arrives between the claimed insert and the adoption still reaches the execution", async () => {
    const { workerPool, executions, finish } = pool(1);
    try {
      expect(workerPool.reserve()).toBeDefined();
      // Not executing here yet: the abort is kept for the run of the reserved worker.
      expect(workerPool.abort("r1", { rollback: true })).toBe(false);
      workerPool.adopt(claimed("r1"));
      const execution = executions.get("r1")!;
      expect(execution.rollback).toBe(true);
      expect(execution.controller.signal.reason).toBe("rollback");
    } finally {
      for (const done of finish.values()) done();
      await workerPool.stop(0);
    }
  });

  it("a queued run the pool left for want of a worker, while one was only reserved, is claimed once that worker is given back", async () => {
    const storage = createMemoryStorage();
    const started: string[] = [];
    const workerPool = new WorkerPool(
      storage,
      async (claimed) => void started.push(claimed.run.run_id),
      () => undefined,
      { workers: 1, leaseMs: 30_000, pollMs: 60_000, owner: "test-owner", onError: () => undefined },
    );
    workerPool.start();
    try {
      const thread = await storage.threads.create({ thread_id: crypto.randomUUID() });
      expect(workerPool.reserve()).toBeDefined();
      await storage.runs.create({ run_id: "queued", thread_id: thread.thread_id, assistant_id: "a" });
      workerPool.notify();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(started).toEqual([]);
      workerPool.release();
      for (let i = 0; i < 50 && started.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(started).toEqual(["queued"]);
    } finally {
      await workerPool.stop(0);
    }
  });

  it("a stopped pool reserves nothing", async () => {
    const { workerPool } = pool(1);
    await workerPool.stop(0);
    expect(workerPool.reserve()).toBeUndefined();
  });
});
