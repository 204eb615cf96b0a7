import { describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { newRun, newThread, uid, type Harness } from "./harness.js";
import { results, sampleResult } from "./results.js";

/**
 * What other operations do to run results: erasure (core's run cascade), assistant delete (which erases
 * no run), prune, truncate, thread copy, a second connection and a reopen. Registered, with the results
 * contract, only for a driver that declares `{ results: true }`.
 */
export function describeResultLifecycle(h: Harness): void {
  describe("run results through erasure, copy, truncate and reopen", () => {
    it("erasure cascades results: run delete, rollback, thread delete, prune with delete", async () => {
      const s = await h.open();
      const runs = results(s);
      const viaRun = await newRun(s);
      const viaRollback = await newRun(s);
      const viaThread = await newRun(s);
      const viaPrune = await newRun(s);
      const survivor = await newRun(s);
      for (const r of [viaRun, viaRollback, viaThread, viaPrune, survivor]) await runs.recordResult(r.run_id, { values: { id: r.run_id } });
      await runs.delete(viaRun.run_id);
      await runs.delete(viaRollback.run_id, { checkpoints: true });
      await s.threads.delete(viaThread.thread_id);
      expect(await s.threads.prune([viaPrune.thread_id], "delete")).toBe(1);
      expect(await s.threads.get(viaPrune.thread_id)).toBeNull();
      for (const r of [viaRun, viaRollback, viaThread, viaPrune]) {
        expect(await runs.getResult(r.run_id)).toBeNull();
        expect(await runs.get(r.run_id)).toBeNull();
      }
      // Re-created ids start without a result (nothing was left behind).
      for (const r of [viaRun, viaRollback, viaThread, viaPrune]) {
        const thread = (await s.threads.get(r.thread_id)) ?? (await s.threads.create({ thread_id: r.thread_id }));
        await runs.create({ run_id: r.run_id, thread_id: thread.thread_id, assistant_id: survivor.assistant_id });
        expect(await runs.getResult(r.run_id)).toBeNull();
      }
      expect(await runs.getResult(survivor.run_id)).toEqual({ values: { id: survivor.run_id } });
    });

    it("assistant delete keeps its runs' results (they belong to the runs' threads), readable by run id", async () => {
      const s = await h.open();
      const runs = results(s);
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const run = await newRun(s, { assistant_id: assistant.assistant_id, status: "success" });
      await runs.recordResult(run.run_id, sampleResult(run.thread_id));
      expect(await s.assistants.delete(assistant.assistant_id)).toBe(true);
      expect(await runs.get(run.run_id)).toEqual(run);
      expect(await runs.getResult(run.run_id)).toEqual(sampleResult(run.thread_id));
      // First write still wins: the dangling assistant_id does not reopen the result.
      await runs.recordResult(run.run_id, { values: { late: true } });
      expect(await runs.getResult(run.run_id)).toEqual(sampleResult(run.thread_id));
      // Erasing the run itself still takes the result.
      await s.threads.delete(run.thread_id);
      expect(await runs.getResult(run.run_id)).toBeNull();
    });

    it("truncate of runs or threads takes results; other truncates keep them", async () => {
      const s = await h.open();
      const runs = results(s);
      const viaRuns = await newRun(s);
      await runs.recordResult(viaRuns.run_id, { values: { a: 1 } });
      await s.truncate({ store: true, checkpointer: true });
      expect(await runs.getResult(viaRuns.run_id)).toEqual({ values: { a: 1 } });
      await s.truncate({ runs: true });
      expect(await runs.getResult(viaRuns.run_id)).toBeNull();
      const viaThreads = await newRun(s);
      await runs.recordResult(viaThreads.run_id, { values: { b: 2 } });
      await s.truncate({ threads: true });
      expect(await runs.getResult(viaThreads.run_id)).toBeNull();
    });

    it("prune keep_latest keeps runs and their results", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      await runs.recordResult(run.run_id, sampleResult(run.thread_id));
      expect(await s.threads.prune([run.thread_id], "keep_latest")).toBe(1);
      expect(await runs.get(run.run_id)).not.toBeNull();
      expect(await runs.getResult(run.run_id)).toEqual(sampleResult(run.thread_id));
    });

    it("thread copy reattaches results to the new run ids, remapping checkpoint.thread_id and internal taskId", async () => {
      const s = await h.open();
      const runs = results(s);
      const thread = await newThread(s);
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const base = { thread_id: thread.thread_id, assistant_id: assistant.assistant_id };
      const first = await runs.create(
        { run_id: uid(), ...base, status: "success", metadata: { turn: 1 } },
        { internal: { captureResult: true } },
      );
      const second = await runs.create(
        { run_id: uid(), ...base, status: "success", metadata: { turn: 2 } },
        { internal: { captureResult: true, taskId: first.run_id } },
      );
      const foreignTask = uid();
      const third = await runs.create(
        { run_id: uid(), ...base, status: "success", metadata: { turn: 3 } },
        { internal: { taskId: foreignTask } },
      );
      await runs.recordResult(first.run_id, sampleResult(thread.thread_id, "first"));
      await runs.recordResult(second.run_id, {
        ...sampleResult(thread.thread_id, "second"),
        checkpoint: { thread_id: "elsewhere", checkpoint_ns: "", checkpoint_id: "x" },
      });

      const copyId = uid();
      expect(await s.threads.copy(thread.thread_id, copyId)).not.toBeNull();
      const copied = await runs.search({ thread_id: copyId, limit: 100 });
      expect(copied).toHaveLength(3);
      const byTurn = new Map(copied.map((r) => [r.metadata.turn as number, r]));
      const [c1, c2, c3] = [byTurn.get(1)!, byTurn.get(2)!, byTurn.get(3)!];
      for (const [c, original] of [
        [c1, first],
        [c2, second],
        [c3, third],
      ] as const) {
        expect(c.run_id).not.toBe(original.run_id);
        expect(c).toMatchObject({
          thread_id: copyId,
          assistant_id: original.assistant_id,
          status: original.status,
          created_at: original.created_at,
        });
      }
      const expectedFirst = sampleResult(thread.thread_id, "first");
      expect(await runs.getResult(c1.run_id)).toEqual({
        ...expectedFirst,
        checkpoint: { ...expectedFirst.checkpoint!, thread_id: copyId },
      });
      // Only coordinates that point at the source thread are remapped.
      expect((await runs.getResult(c2.run_id))!.checkpoint).toEqual({ thread_id: "elsewhere", checkpoint_ns: "", checkpoint_id: "x" });
      expect(await runs.getResult(c3.run_id)).toBeNull();
      expect(await runs.getInternal(c1.run_id)).toEqual({ captureResult: true });
      expect(await runs.getInternal(c2.run_id)).toEqual({ captureResult: true, taskId: c1.run_id });
      expect(await runs.getInternal(c3.run_id)).toEqual({ taskId: foreignTask });
      // The source is untouched, and the copies are independent of it.
      expect(await runs.getResult(first.run_id)).toEqual(expectedFirst);
      expect(await runs.getInternal(second.run_id)).toEqual({ captureResult: true, taskId: first.run_id });
      await runs.delete(first.run_id);
      expect(await runs.getResult(c1.run_id)).not.toBeNull();
      await s.threads.delete(copyId);
      expect(await runs.getResult(c1.run_id)).toBeNull();
      expect(await runs.getResult(second.run_id)).not.toBeNull();
    });

    if (h.hasSibling)
      it("a sibling driver reads the result another wrote", async () => {
        const s = await h.open();
        const other = await h.sibling(s);
        const run = await newRun(s);
        await results(other).recordResult(run.run_id, { values: { from: "sibling" } });
        expect(await results(s).getResult(run.run_id)).toEqual({ values: { from: "sibling" } });
      });

    if (h.hasReopen)
      it("a result is there after reopen, and the first write still wins", async () => {
        let s: Storage = await h.open();
        const run = await newRun(s, { status: "success" });
        const result = { values: { answer: 42 }, checkpoint: { thread_id: run.thread_id, checkpoint_ns: "", checkpoint_id: "c" } };
        await results(s).recordResult(run.run_id, result);
        s = await h.reopen(s);
        expect(await results(s).getResult(run.run_id)).toEqual(result);
        await results(s).recordResult(run.run_id, { values: { answer: 0 } });
        expect(await results(s).getResult(run.run_id)).toEqual(result);
      });
  });
}
