import { describe, expect, it } from "vitest";
import { WireSerializationError, type Storage } from "@agent-server/core";
import { newRun, uid, type Harness } from "./harness.js";
import { results, sampleResult } from "./results.js";

/** A pending run claimed by `owner` (the only pending run the fresh driver has). */
async function claimedRun(s: Storage, owner: string) {
  const run = await newRun(s, { created_at: new Date(Date.now() - 1000).toISOString() });
  const claimed = await s.runs.claimNext({ owner, leaseMs: 60_000 });
  expect(claimed?.run.run_id).toBe(run.run_id);
  return run;
}

/**
 * `RunRepo.settle`, checked for a driver that has it (every bundled one): the result and the terminal
 * status in one transaction, under the guards of `recordResult` (first write wins), the lease, and
 * `transition`.
 */
export function describeSettle(h: Harness): void {
  describe("run settlement in one transaction (RunRepo.settle, when the driver has it)", () => {
    it("records the result and writes the status together, under the owner's lease", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      const result = sampleResult(run.thread_id);
      const settled = await s.runs.settle(run.run_id, "success", result, { from: ["running"], owner: "w1" });
      expect(settled).toMatchObject({ run_id: run.run_id, status: "success" });
      expect(await results(s).getResult(run.run_id)).toEqual(result);
      // First write wins: a second settle (a retry) changes neither.
      expect(
        await s.runs.settle(run.run_id, "error", sampleResult(run.thread_id, "second"), { from: ["running"], owner: "w1" }),
      ).toBeNull();
      expect(await results(s).getResult(run.run_id)).toEqual(result);
      expect((await s.runs.get(run.run_id))?.status).toBe("success");
    });

    it("another owner's settle writes nothing: no result, the run still running", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      expect(await s.runs.settle(run.run_id, "success", sampleResult(run.thread_id), { from: ["running"], owner: "stale" })).toBeNull();
      expect(await results(s).getResult(run.run_id)).toBeNull();
      expect((await s.runs.get(run.run_id))?.status).toBe("running");
    });

    it("a cancel that won keeps its status; the result of the lease holder is still recorded (renderers follow the status)", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      await s.runs.transition(run.run_id, "interrupted", { from: ["pending", "running"] });
      expect(await s.runs.settle(run.run_id, "success", sampleResult(run.thread_id), { from: ["running"], owner: "w1" })).toBeNull();
      expect((await s.runs.get(run.run_id))?.status).toBe("interrupted");
      expect(await results(s).getResult(run.run_id)).toEqual(sampleResult(run.thread_id));
    });

    it("a result that cannot be serialized throws before anything is written; an unknown run settles nothing", async () => {
      const s = await h.open();
      if (!s.runs.settle) return;
      const run = await claimedRun(s, "w1");
      const bad = { values: { n: 1n } } as never;
      await expect(s.runs.settle(run.run_id, "success", bad, { from: ["running"], owner: "w1" })).rejects.toBeInstanceOf(
        WireSerializationError,
      );
      expect((await s.runs.get(run.run_id))?.status).toBe("running");
      expect(await results(s).getResult(run.run_id)).toBeNull();
      expect(await s.runs.settle(uid(), "success", sampleResult(run.thread_id), { from: ["running"] })).toBeNull();
    });
  });
}
