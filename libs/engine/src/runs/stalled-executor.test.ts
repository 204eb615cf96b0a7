import { Annotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import type { Run } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import { instrumentStorage, type StorageCall } from "../../test/support/instrumented-storage.js";
import { LatchGraphs } from "../../test/support/latch-graph.js";

const TERMINAL = ["success", "error", "timeout", "interrupted"];

/** A graph whose first attempt waits until `release` (never, here); later attempts answer at once. */
function firstAttemptHangs() {
  let markEntered!: () => void;
  const entered = new Promise<void>((resolve) => (markEntered = resolve));
  const graph = new StateGraph(Annotation.Root({ answer: Annotation<string>() }))
    .addNode("work", async (_state, config: LangGraphRunnableConfig) => {
      if (config.metadata?.run_attempt === 1) {
        markEntered();
        await new Promise<never>(() => undefined);
      }
      return { answer: `attempt ${String(config.metadata?.run_attempt)}` };
    })
    .addEdge("__start__", "work")
    .compile();
  return { graph, entered };
}

/** Terminal writes that landed (the compare-and-set changed the row). */
const terminalWrites = (calls: StorageCall[]) =>
  calls.filter(
    (c) => c.repo === "runs" && (c.method === "transition" || c.method === "settle") && TERMINAL.includes(c.args[1] as string) && c.result,
  );

/**
 * A process whose event loop stalls past its lease: its renewals stop landing, another process's reaper
 * requeues the run and executes it as attempt 2. The stale execution must neither end the run nor touch
 * its thread: the new owner alone writes the terminal status, and the stale one is aborted at its next
 * renewal.
 */
describe.each(drivers)("a stalled executor on $name", (driver) => {
  it("loses its run to the owner that re-claimed it: one terminal write, by that owner; the stale execution is aborted", async () => {
    const opened = await driver.open();
    const { graph, entered } = firstAttemptHangs();
    const stale = instrumentStorage(opened.storage);
    const fresh = instrumentStorage(opened.storage);
    let resumeRenewals!: () => void;
    const stalled = new Promise<void>((resolve) => (resumeRenewals = resolve));
    stale.before = (call) => (call.method === "renewLeases" ? stalled : undefined);
    const staleEnds: string[] = [];
    const logger = (ends: string[]) => ({
      runStarted: () => undefined,
      runEnded: (_r: string, _t: string, status: string) => ends.push(status),
    });
    const a = await startEngine(stale.storage, { workers: 1, leaseMs: 300, logger: logger(staleEnds) }, { hangs: graph });
    let b: Awaited<ReturnType<typeof startEngine>> | undefined;
    try {
      const threadId = await newThread(opened.storage);
      const run: Run = await a.createRun({ assistant_id: "hangs", input: {} }, { threadId });
      await entered;
      const waitedHere = a.waitRun(run.run_id, threadId);

      b = await startEngine(fresh.storage, { workers: 1, leaseMs: 300 }, { hangs: graph });
      const end = await b.waitRun(run.run_id, threadId);
      expect(end).toMatchObject({ status: "success", values: { answer: "attempt 2" } });

      // The stall ends: the stale executor's renewal fails, it aborts its execution and ends quietly.
      resumeRenewals();
      await eventually(async () => staleEnds.length > 0);
      expect(staleEnds).toEqual(["lost"]);
      // Its waiter gets the new owner's end.
      expect(await waitedHere).toMatchObject({ status: "success", values: { answer: "attempt 2" } });

      expect(terminalWrites(stale.calls)).toEqual([]);
      const [write, ...more] = terminalWrites(fresh.calls);
      expect(more).toEqual([]);
      expect(write?.args[1]).toBe("success");
      // The stale write was refused by its owner guard, not by chance.
      const refused = stale.calls.filter((c) => c.repo === "runs" && (c.method === "transition" || c.method === "settle"));
      expect(refused.map((c) => [c.args[1], c.result])).toEqual([["interrupted", null]]);
      expect((refused[0]!.args[2] as { owner?: string }).owner).toBeDefined();
      expect((refused[0]!.args[2] as { owner?: string }).owner).not.toBe((write!.args[2] as { owner?: string }).owner);

      expect(await opened.storage.runs.get(run.run_id)).toMatchObject({ status: "success" });
      expect(await opened.storage.runs.getLease(run.run_id)).toBeNull();
      const thread = await opened.storage.threads.get(threadId);
      expect(thread).toMatchObject({ status: "idle", values: { answer: "attempt 2" } });
    } finally {
      resumeRenewals();
      await b?.stop(0);
      await a.stop(0);
      await opened.dispose();
    }
  });
});

/** A graph whose attempts each wait until the test opens their gate. */
function gatedAttempts() {
  const gates = new Map<number, { entered: () => void; reached: Promise<void>; open: () => void; opened: Promise<void> }>();
  const gate = (attempt: number) => {
    let g = gates.get(attempt);
    if (!g) {
      let entered!: () => void;
      let open!: () => void;
      const reached = new Promise<void>((resolve) => (entered = resolve));
      const opened = new Promise<void>((resolve) => (open = resolve));
      gates.set(attempt, (g = { entered, reached, open, opened }));
    }
    return g;
  };
  const graph = new StateGraph(Annotation.Root({ answer: Annotation<string>() }))
    .addNode("work", async (_state, config: LangGraphRunnableConfig) => {
      const attempt = Number(config.metadata?.run_attempt);
      gate(attempt).entered();
      await gate(attempt).opened;
      return { answer: `attempt ${attempt}` };
    })
    .addEdge("__start__", "work")
    .compile();
  return { graph, reached: (attempt: number) => gate(attempt).reached, open: (attempt: number) => gate(attempt).open() };
}

describe.each(drivers)("a stalled executor whose graph completes on $name", (driver) => {
  it("records no result and writes nothing for the run another owner now executes", async () => {
    const opened = await driver.open();
    const attempts = gatedAttempts();
    const stale = instrumentStorage(opened.storage);
    const fresh = instrumentStorage(opened.storage);
    let resumeRenewals!: () => void;
    const stalled = new Promise<void>((resolve) => (resumeRenewals = resolve));
    stale.before = (call) => (call.method === "renewLeases" ? stalled : undefined);
    const staleEnds: string[] = [];
    const logger = { runStarted: () => undefined, runEnded: (_r: string, _t: string, status: string) => staleEnds.push(status) };
    const a = await startEngine(stale.storage, { workers: 1, leaseMs: 300, logger }, { gated: attempts.graph });
    let b: Awaited<ReturnType<typeof startEngine>> | undefined;
    try {
      const threadId = await newThread(opened.storage);
      // Server-marked for capture (A2A): its result is recorded, first write wins.
      const run = await a.createRun({ assistant_id: "gated", input: {} }, { threadId, internal: { captureResult: true } });
      await attempts.reached(1);
      b = await startEngine(fresh.storage, { workers: 1, leaseMs: 300 }, { gated: attempts.graph });
      await attempts.reached(2);

      // The stale attempt completes while the new owner still executes the run.
      attempts.open(1);
      await eventually(async () => staleEnds.length > 0);
      expect(staleEnds).toEqual(["lost"]);
      expect(await opened.storage.runs.getResult!(run.run_id)).toBeNull();
      expect(await opened.storage.runs.get(run.run_id)).toMatchObject({ status: "running" });

      attempts.open(2);
      expect(await b.waitRun(run.run_id, threadId)).toMatchObject({ status: "success", values: { answer: "attempt 2" } });
      expect(await opened.storage.runs.getResult!(run.run_id)).toMatchObject({ values: { answer: "attempt 2" } });
      expect(terminalWrites(stale.calls)).toEqual([]);
      expect(terminalWrites(fresh.calls).map((c) => c.args[1])).toEqual(["success"]);
    } finally {
      resumeRenewals();
      attempts.open(1);
      attempts.open(2);
      await b?.stop(0);
      await a.stop(0);
      await opened.dispose();
    }
  });
});

/**
 * A run cancelled through another process while it executes: it is `interrupted` at once, but its
 * executor keeps its lease until its settlement is done, so no process claims the thread's next run while
 * the cancelled one is still unwinding.
 */
describe.each(drivers)("a run cancelled through another engine on $name", (driver) => {
  it("holds its thread until its executor's settlement ends; then the thread's next run is claimed", async () => {
    const opened = await driver.open();
    const latches = new LatchGraphs();
    const executor = instrumentStorage(opened.storage);
    let reachedSettlement!: () => void;
    const inSettlement = new Promise<void>((resolve) => (reachedSettlement = resolve));
    let finishSettlement!: () => void;
    const settlementHeld = new Promise<void>((resolve) => (finishSettlement = resolve));
    // Held where the executor's settlement learns that a cancel won its run.
    executor.before = (call) => {
      if (call.repo !== "runs" || call.method !== "getLease") return;
      reachedSettlement();
      return settlementHeld;
    };
    const a = await startEngine(executor.storage, { workers: 1 }, { latch: latches.graph });
    const b = await startEngine(opened.storage, { workers: 0 }, { latch: latches.graph });
    try {
      const threadId = await newThread(opened.storage);
      const first = await a.createRun({ assistant_id: "latch", input: {} }, { threadId });
      await latches.entered(threadId);
      const second = await b.createRun({ assistant_id: "latch", input: {}, multitask_strategy: "enqueue" } as never, { threadId });

      await b.cancel([first.run_id], { threadId });
      expect((await opened.storage.runs.get(first.run_id))?.status).toBe("interrupted");
      await inSettlement;
      // Still unwinding in its executor: no process may start the thread's next run.
      expect(await opened.storage.runs.claimNext({ owner: "a-third-process", leaseMs: 60_000 })).toBeNull();

      finishSettlement();
      latches.open(threadId);
      expect(await a.waitRun(first.run_id, threadId)).toMatchObject({ status: "interrupted" });
      expect(await a.waitRun(second.run_id, threadId)).toMatchObject({ status: "success", values: { answer: "done" } });
      expect(await opened.storage.runs.getLease(first.run_id)).toBeNull();
    } finally {
      finishSettlement();
      await b.stop(0);
      await a.stop(0);
      await opened.dispose();
    }
  });
});
