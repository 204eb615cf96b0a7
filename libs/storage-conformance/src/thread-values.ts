import { describe, expect, it } from "vitest";
import type { Storage, ThreadValuesRef } from "@agent-server/core";
import { checkpointId, graphValues, latestTuple, listCheckpoints, runGraph } from "./graph.js";
import { newThread, uid, type Harness } from "./harness.js";
import { claimedRun } from "./settle.js";

/** A pointer to the thread's latest root checkpoint with the graph's state keys (or `keys`). */
async function refToLatest(s: Storage, threadId: string, keys = ["log", "count"]): Promise<ThreadValuesRef> {
  const tuple = await latestTuple(s, threadId);
  expect(tuple).toBeDefined();
  return { checkpoint_ns: "", checkpoint_id: checkpointId(tuple!), keys };
}

/**
 * Thread values left in a checkpoint (`valuesAt`, core's rules/thread-values.ts): settlement and updates
 * write a pointer instead of the state, and every read of the thread returns the values it points to,
 * as if they had been written.
 */
export function describeThreadValues(h: Harness): void {
  describe("thread values left in the run's checkpoint (valuesAt)", () => {
    it("ThreadRepo says it stores valuesAt", async () => {
      const s = await h.open();
      expect(s.threads.storesValuesAt).toBe(true);
    });

    it("a settlement's pointer reads back as the checkpoint's values, from get, search and a second read", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      await runGraph(s, run.thread_id, run.run_id, "one");
      const valuesAt = await refToLatest(s, run.thread_id);
      const settled = await s.runs.settle(run.run_id, "success", {
        from: ["running"],
        owner: "w1",
        thread: { status: "idle", valuesAt, interrupts: {}, error: null },
        releaseLease: true,
      });
      expect(settled?.thread).toMatchObject({ status: "idle" });
      const expected = await graphValues(s, run.thread_id);
      expect(expected).toEqual({ log: ["one", "step", "inner"], count: 1 });
      expect((await s.threads.get(run.thread_id))?.values).toEqual(expected);
      expect((await s.threads.get(run.thread_id))?.values).toEqual(expected);
      const [found] = await s.threads.search({ ids: [run.thread_id] });
      expect(found).toMatchObject({ thread_id: run.thread_id, status: "idle", values: expected });
    });

    it("only the pointer's keys are values; an update's values replace a pointer and a later pointer replaces them", async () => {
      const s = await h.open();
      const thread = await newThread(s);
      await runGraph(s, thread.thread_id, uid(), "a");
      expect((await s.threads.update(thread.thread_id, { valuesAt: await refToLatest(s, thread.thread_id, ["count"]) }))?.values).toEqual({
        count: 1,
      });
      expect((await s.threads.get(thread.thread_id))?.values).toEqual({ count: 1 });
      await s.threads.update(thread.thread_id, { valuesAt: await refToLatest(s, thread.thread_id) });
      await s.threads.update(thread.thread_id, { values: { written: true } });
      expect((await s.threads.get(thread.thread_id))?.values).toEqual({ written: true });
      await runGraph(s, thread.thread_id, uid(), "b");
      await s.threads.update(thread.thread_id, { valuesAt: await refToLatest(s, thread.thread_id), metadata: { turn: 2 } });
      expect(await s.threads.get(thread.thread_id)).toMatchObject({
        metadata: { turn: 2 },
        values: { log: ["a", "step", "inner", "b", "step", "inner"], count: 2 },
      });
    });

    it("a search or count filtering on values sees values still behind a pointer", async () => {
      const s = await h.open();
      const [hit, miss] = [await newThread(s), await newThread(s)];
      await runGraph(s, hit.thread_id, uid(), "needle");
      await runGraph(s, miss.thread_id, uid(), "hay");
      await s.threads.update(hit.thread_id, { valuesAt: await refToLatest(s, hit.thread_id) });
      await s.threads.update(miss.thread_id, { valuesAt: await refToLatest(s, miss.thread_id) });
      const ids = [hit.thread_id, miss.thread_id];
      // Without the filter first, so a pointer is still unread when the filtered search comes.
      const found = await s.threads.search({ ids, values: { log: ["needle"] } });
      expect(found.map((t) => t.thread_id)).toEqual([hit.thread_id]);
      expect(await s.threads.count({ values: { count: 1 } })).toBe(2);
      expect(await s.threads.count({ values: { log: ["needle"] } })).toBe(1);
    });

    it("a copy of a thread holding a pointer has the source's values", async () => {
      const s = await h.open();
      const source = await newThread(s);
      await runGraph(s, source.thread_id, uid(), "copied");
      await s.threads.update(source.thread_id, { valuesAt: await refToLatest(s, source.thread_id) });
      const copyId = uid();
      const copy = await s.threads.copy(source.thread_id, copyId);
      const expected = { log: ["copied", "step", "inner"], count: 1 };
      expect(copy?.values).toEqual(expected);
      expect((await s.threads.get(copyId))?.values).toEqual(expected);
      expect((await s.threads.get(source.thread_id))?.values).toEqual(expected);
    });

    it("a pointer to a checkpoint pruned since reads the thread's latest checkpoint", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      await runGraph(s, run.thread_id, run.run_id, "first");
      const stale = await refToLatest(s, run.thread_id);
      await s.runs.settle(run.run_id, "success", { from: ["running"], owner: "w1", thread: { status: "idle", valuesAt: stale } });
      // A later execution that never settled (a crash), then a prune keeping only its checkpoint.
      await runGraph(s, run.thread_id, uid(), "second");
      await s.threads.prune([run.thread_id], "keep_latest");
      expect((await listCheckpoints(s, run.thread_id)).map(checkpointId)).not.toContain(stale.checkpoint_id);
      expect((await s.threads.get(run.thread_id))?.values).toEqual({
        log: ["first", "step", "inner", "second", "step", "inner"],
        count: 2,
      });
    });
  });
}
