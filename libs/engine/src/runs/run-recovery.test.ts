import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { Run, Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { collect, eventually, newThread, startEngine } from "../../test/support/harness.js";
import type { RunLogger } from "./run-logger.js";
import type { EngineRunKwargs } from "./run-request.js";

/** A lease owner as a server process of this host writes it, of a process that has exited. */
function goneProcessOwner(): string {
  const { pid } = spawnSync(process.execPath, ["-e", ""]);
  return `${hostname()}:${pid}:lost`;
}

/** An hour: a lease that cannot lapse during a test, so only start-up recovery can take the run back. */
const HOUR = 3_600_000;

/**
 * What a worker that is then killed leaves behind: the run claimed under `owner`, and the checkpoints of
 * the graph's first steps, written as the run (its config, its run_id) until the graph stops at `stop`.
 */
async function loseWorkerMidRun(
  engine: Engine,
  storage: Storage,
  run: Run,
  owner: string,
  stop?: { interruptBefore?: string[]; interruptAfter?: string[] },
): Promise<void> {
  const claimed = await storage.runs.claimNext({ owner, leaseMs: HOUR });
  expect(claimed?.run.run_id).toBe(run.run_id);
  if (!stop) return;
  const kwargs = run.kwargs as EngineRunKwargs;
  const assistant = await storage.assistants.get(run.assistant_id);
  const graph = await engine.registry.get(assistant!.graph_id, kwargs.config);
  await graph.invoke(kwargs.input as never, { configurable: kwargs.config.configurable, ...stop } as never);
}

function recordingLogger(): RunLogger & { started: Array<[string, number]>; requeued: Array<[string, number, string]> } {
  const started: Array<[string, number]> = [];
  const requeued: Array<[string, number, string]> = [];
  return {
    started,
    requeued,
    runStarted: (runId, _threadId, attempt) => started.push([runId, attempt]),
    runRequeued: (runId, _threadId, attempt, reason) => requeued.push([runId, attempt, reason]),
    runEnded: () => undefined,
  };
}

describe.each(drivers)("run recovery on $name", (driver) => {
  /** The storage after a restart: reopened where the driver can, else the same memory store. */
  const restart = async (opened: Awaited<ReturnType<typeof driver.open>>) => (opened.reopen ? opened.reopen() : opened.storage);

  it("at start-up, resumes a run of a gone process from its last checkpoint as attempt 2: done steps are not run again", async () => {
    const opened = await driver.open();
    try {
      const before = await startEngine(opened.storage, { workers: 0 });
      const threadId = await newThread(opened.storage);
      const run = await before.createRun({ assistant_id: "slow", input: { delayMs: 10 } }, { threadId });
      await loseWorkerMidRun(before, opened.storage, run, goneProcessOwner(), { interruptAfter: ["first"] });
      await before.stop(0);

      const storage = await restart(opened);
      const logger = recordingLogger();
      const after = await startEngine(storage, { logger, leaseMs: HOUR });
      try {
        const end = await after.waitRun(run.run_id);
        expect(end.status).toBe("success");
        expect(end.values).toMatchObject({ steps: [1, 2] });
        expect(logger.requeued).toEqual([[run.run_id, 1, "owner-gone"]]);
        expect(logger.started).toEqual([[run.run_id, 2]]);
        // As the official server: the graph saw the attempt in its config metadata, so checkpoints carry it.
        const latest = await storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
        expect(latest?.metadata).toMatchObject({ run_id: run.run_id, run_attempt: 2 });
        expect((await storage.threads.get(threadId))?.status).toBe("idle");
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("a resumed run does not apply its input twice (stopped after its input checkpoint)", async () => {
    const opened = await driver.open();
    try {
      const before = await startEngine(opened.storage, { workers: 0 });
      const threadId = await newThread(opened.storage);
      const run = await before.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "a" }] } }, { threadId });
      await loseWorkerMidRun(before, opened.storage, run, goneProcessOwner(), { interruptBefore: ["echo"] });
      await before.stop(0);

      const storage = await restart(opened);
      const after = await startEngine(storage, { leaseMs: HOUR });
      try {
        const end = await after.waitRun(run.run_id);
        expect(end.status).toBe("success");
        const values = end.values as { messages: Array<{ content: string }> };
        expect(values.messages.map((m) => m.content)).toEqual(["a", "echo: a"]);
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("a run started from a given checkpoint resumes from its own last checkpoint, not from that one", async () => {
    const opened = await driver.open();
    try {
      const threadId = await newThread(opened.storage);
      const earlier = await startEngine(opened.storage);
      const first = await earlier.createRun({ assistant_id: "slow", input: { delayMs: 10 } }, { threadId });
      expect((await earlier.waitRun(first.run_id)).values).toMatchObject({ steps: [1, 2] });
      await earlier.stop(0);
      const startedAt = await opened.storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
      const before = await startEngine(opened.storage, { workers: 0 });
      const run = await before.createRun(
        { assistant_id: "slow", input: { delayMs: 10 }, checkpoint_id: startedAt!.config.configurable!.checkpoint_id as string },
        { threadId },
      );
      await loseWorkerMidRun(before, opened.storage, run, goneProcessOwner(), { interruptAfter: ["first"] });
      await before.stop(0);

      const storage = await restart(opened);
      const after = await startEngine(storage, { leaseMs: HOUR });
      try {
        const end = await after.waitRun(run.run_id);
        expect(end).toMatchObject({ status: "success", values: { steps: [1, 2, 1, 2] } });
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("a run lost before its first checkpoint starts again from its input", async () => {
    const opened = await driver.open();
    try {
      const threadId = await newThread(opened.storage);
      const earlier = await startEngine(opened.storage);
      const first = await earlier.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "a" }] } }, { threadId });
      expect((await earlier.waitRun(first.run_id)).status).toBe("success");
      await earlier.stop(0);
      const before = await startEngine(opened.storage, { workers: 0 });
      const second = await before.createRun({ assistant_id: "echo", input: { messages: [{ role: "user", content: "b" }] } }, { threadId });
      await loseWorkerMidRun(before, opened.storage, second, goneProcessOwner());
      await before.stop(0);

      const storage = await restart(opened);
      const after = await startEngine(storage, { leaseMs: HOUR });
      try {
        expect((await after.waitRun(second.run_id)).status).toBe("success");
        const values = (await storage.threads.get(threadId))?.values as { messages: Array<{ content: string }> };
        expect(values.messages.map((m) => m.content)).toEqual(["a", "echo: a", "b", "echo: b"]);
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("a stateless run (temporary thread) resumes too, and its waiter gets the final values", async () => {
    const opened = await driver.open();
    try {
      const before = await startEngine(opened.storage, { workers: 0 });
      // Steps slow enough that the resumed run is still at work when its waiter below is registered (the
      // resuming engine claims it as it starts): a waiter that comes after a temporary thread has gone
      // reads no values.
      const run = await before.createRun({ assistant_id: "slow", input: { delayMs: 300 } });
      expect((run.kwargs as { temporary?: boolean }).temporary).toBe(true);
      await loseWorkerMidRun(before, opened.storage, run, goneProcessOwner(), { interruptAfter: ["first"] });
      await before.stop(0);

      const storage = await restart(opened);
      const after = await startEngine(storage, { leaseMs: HOUR, workers: 0 });
      try {
        // This waiter's engine stops before the run resumes: however it ends, nobody reads it.
        const waiting = after.waitRun(run.run_id).catch(() => undefined);
        await after.stop(0);
        const resumed = await startEngine(storage, { leaseMs: HOUR });
        try {
          const end = await resumed.waitRun(run.run_id);
          expect(end).toMatchObject({ status: "success", values: { steps: [1, 2] } });
          await waiting;
          // A temporary thread goes with its run's end, as for any stateless run.
          await eventually(async () => (await storage.threads.get(run.thread_id)) === null);
        } finally {
          await resumed.stop(0);
        }
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("after its last attempt a run ends error (WorkerLost) with a clear message, and its thread is usable", async () => {
    const opened = await driver.open();
    try {
      const before = await startEngine(opened.storage, { workers: 0 });
      const threadId = await newThread(opened.storage);
      const run = await before.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId });
      await before.stop(0);
      // Three attempts, each lost with its process.
      for (let attempt = 1; attempt <= 3; attempt++) {
        const owner = goneProcessOwner();
        expect(await opened.storage.runs.claimNext({ owner, leaseMs: HOUR })).toMatchObject({ attempt });
        if (attempt < 3) await opened.storage.runs.requeue(run.run_id, { owner });
      }

      const storage = await restart(opened);
      const after = await startEngine(storage, { maxAttempts: 3, leaseMs: HOUR });
      try {
        const end = await after.waitRun(run.run_id);
        expect(end.status).toBe("error");
        expect(end.error).toEqual({ error: "WorkerLost", message: expect.stringMatching(/attempted 3 times/) });
        expect((await storage.threads.get(threadId))?.status).toBe("error");
        const next = await after.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId });
        expect((await after.waitRun(next.run_id)).status).toBe("success");
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });

  it("leaves alone a run whose owner may be alive (another host) until its lease lapses; a joiner then sees attempt 2 to the end", async () => {
    const opened = await driver.open();
    try {
      const before = await startEngine(opened.storage, { workers: 0 });
      const threadId = await newThread(opened.storage);
      const run = await before.createRun({ assistant_id: "slow", input: { delayMs: 10 }, stream_mode: ["values"] }, { threadId });
      await before.stop(0);
      const claimed = await opened.storage.runs.claimNext({ owner: "other-host:1:alive", leaseMs: 1_500 });
      expect(claimed?.run.run_id).toBe(run.run_id);

      const storage = await restart(opened);
      const after = await startEngine(storage, { leaseMs: 300 });
      try {
        // Start-up recovery did not take it: it is still running under the other owner's lease.
        expect((await storage.runs.get(run.run_id))?.status).toBe("running");
        const joined = collect(after.joinStream(run.run_id));
        const waited = after.waitRun(run.run_id);
        expect((await waited).status).toBe("success");
        const events = await joined;
        expect(events[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id, attempt: 2 } });
        expect(events.at(-1)).toMatchObject({ event: "values", data: { steps: [1, 2] } });
      } finally {
        await after.stop(0);
      }
    } finally {
      await opened.dispose();
    }
  });
});
