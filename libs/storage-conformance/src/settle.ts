import { describe, expect, it } from "vitest";
import { WireSerializationError, type Storage } from "@agent-server/core";
import { newRun, uid, type Harness } from "./harness.js";
import { results, sampleResult } from "./results.js";

/** A pending run claimed by `owner` (the only pending run the fresh driver has). */
export async function claimedRun(s: Storage, owner: string) {
  const run = await newRun(s, { created_at: new Date(Date.now() - 1000).toISOString() });
  const claimed = await s.runs.claimNext({ owner, leaseMs: 60_000 });
  expect(claimed?.run.run_id).toBe(run.run_id);
  return run;
}

const interrupts = { task1: [{ id: "i1", value: { ask: "name?" } }] };

/**
 * `RunRepo.settle`, checked for a driver that has it (every bundled one): the result, the terminal
 * status, the thread's update and the lease's release in one transaction, under the guards of
 * `recordResult` (first write wins), the lease, and `transition`.
 */
export function describeSettle(h: Harness): void {
  describe("run settlement in one transaction (RunRepo.settle, when the driver has it)", () => {
    it("records the result and writes the status together, under the owner's lease", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      const result = sampleResult(run.thread_id);
      const settled = await s.runs.settle(run.run_id, "success", { result, from: ["running"], owner: "w1" });
      expect(settled?.run).toMatchObject({ run_id: run.run_id, status: "success" });
      expect(settled?.thread).toBeUndefined();
      expect(await results(s).getResult(run.run_id)).toEqual(result);
      // Without `releaseLease` the lease stays with its owner.
      expect((await s.runs.getLease(run.run_id))?.owner).toBe("w1");
      // First write wins: a second settle (a retry) changes neither.
      expect(
        await s.runs.settle(run.run_id, "error", { result: sampleResult(run.thread_id, "second"), from: ["running"], owner: "w1" }),
      ).toBeNull();
      expect(await results(s).getResult(run.run_id)).toEqual(result);
      expect((await s.runs.get(run.run_id))?.status).toBe("success");
    });

    it("another owner's settle writes nothing: no result, no thread update, the run still running and leased", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      const settled = await s.runs.settle(run.run_id, "success", {
        result: sampleResult(run.thread_id),
        from: ["running"],
        owner: "stale",
        thread: { status: "idle", values: { x: 1 }, interrupts: {}, error: null },
        releaseLease: true,
      });
      expect(settled).toBeNull();
      expect(await results(s).getResult(run.run_id)).toBeNull();
      expect((await s.runs.get(run.run_id))?.status).toBe("running");
      expect((await s.runs.getLease(run.run_id))?.owner).toBe("w1");
      expect(await s.threads.get(run.thread_id)).toMatchObject({ status: "busy", values: null });
    });

    it("a cancel that won keeps its status and the thread is left to its follow-up; the lease holder's result is still recorded", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      await s.runs.transition(run.run_id, "interrupted", { from: ["pending", "running"] });
      const settled = await s.runs.settle(run.run_id, "success", {
        result: sampleResult(run.thread_id),
        from: ["running"],
        owner: "w1",
        thread: { status: "idle", values: { x: 1 } },
        releaseLease: true,
      });
      expect(settled).toBeNull();
      expect((await s.runs.get(run.run_id))?.status).toBe("interrupted");
      expect(await results(s).getResult(run.run_id)).toEqual(sampleResult(run.thread_id));
      // The cancel leaves the lease to the executor, which releases it after its own follow-up.
      expect((await s.runs.getLease(run.run_id))?.owner).toBe("w1");
      expect((await s.threads.get(run.thread_id))?.values).toBeNull();
    });

    it("updates the thread and releases the lease with the status: the thread's next run is claimable at once", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      const next = await s.runs.create({ run_id: uid(), thread_id: run.thread_id, assistant_id: run.assistant_id });
      expect(await s.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toBeNull(); // the thread is held
      const settled = await s.runs.settle(run.run_id, "success", {
        from: ["running"],
        owner: "w1",
        thread: { status: "interrupted", values: { answer: "a\u0000b" }, interrupts, error: null },
        releaseLease: true,
      });
      expect(settled?.run).toMatchObject({ run_id: run.run_id, status: "success" });
      expect(settled?.thread).toEqual({ status: "interrupted", interrupts });
      // No result was given: none is recorded (a run that does not capture one).
      expect(await results(s).getResult(run.run_id)).toBeNull();
      expect(await s.runs.getLease(run.run_id)).toBeNull();
      expect(await s.threads.get(run.thread_id)).toMatchObject({
        status: "interrupted",
        values: { answer: "a\u0000b" },
        interrupts,
        error: null,
      });
      expect((await s.runs.claimNext({ owner: "w2", leaseMs: 60_000 }))?.run.run_id).toBe(next.run_id);
    });

    it("an error run: the run's error and the thread's error, metadata untouched; without values the thread keeps its own", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      await s.threads.update(run.thread_id, { metadata: { keep: true }, values: { before: 1 } });
      const settled = await s.runs.settle(run.run_id, "error", {
        from: ["running"],
        owner: "w1",
        error: { error: "Boom", message: "it broke" },
        thread: { status: "error", error: { error: "Boom", message: "it broke" } },
        releaseLease: true,
      });
      expect(settled?.thread).toEqual({ status: "error", interrupts: {} });
      expect(await s.runs.getError(run.run_id)).toEqual({ error: "Boom", message: "it broke" });
      expect(await s.threads.get(run.thread_id)).toMatchObject({
        status: "error",
        metadata: { keep: true },
        values: { before: 1 },
        error: { error: "Boom", message: "it broke" },
      });
    });

    it("a result or thread value that cannot be serialized throws before anything is written; an unknown run settles nothing", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      const bad = { values: { n: 1n } } as never;
      await expect(s.runs.settle(run.run_id, "success", { result: bad, from: ["running"], owner: "w1" })).rejects.toBeInstanceOf(
        WireSerializationError,
      );
      await expect(
        s.runs.settle(run.run_id, "success", {
          result: sampleResult(run.thread_id),
          from: ["running"],
          owner: "w1",
          thread: { status: "idle", values: { n: 1n } as never },
          releaseLease: true,
        }),
      ).rejects.toBeInstanceOf(WireSerializationError);
      expect((await s.runs.get(run.run_id))?.status).toBe("running");
      expect((await s.runs.getLease(run.run_id))?.owner).toBe("w1");
      expect(await results(s).getResult(run.run_id)).toBeNull();
      expect((await s.threads.get(run.thread_id))?.status).toBe("busy");
      expect(await s.runs.settle(uid(), "success", { result: sampleResult(run.thread_id), from: ["running"] })).toBeNull();
    });
  });
}
