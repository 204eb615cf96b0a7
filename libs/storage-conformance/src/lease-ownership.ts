import { describe, expect, it } from "vitest";
import { addMs, type Storage } from "@agent-server/core";
import { newThread, uid, type Harness } from "./harness.js";

/** Two pending runs of one thread, the first created an hour ago and the second a second later. */
async function twoRunsOfOneThread(s: Storage): Promise<[string, string]> {
  const thread = await newThread(s);
  const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
  const base = new Date(Date.now() - 3_600_000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const run = await s.runs.create({
      run_id: uid(),
      thread_id: thread.thread_id,
      assistant_id: assistant.assistant_id,
      created_at: addMs(base, i * 1000),
    });
    ids.push(run.run_id);
  }
  return [ids[0]!, ids[1]!];
}

export function describeLeaseOwnership(h: Harness): void {
  describe("run leases: an executor owns its run until it releases it", () => {
    it("a run cancelled while it executes keeps its executor's lease: its thread's next run waits for the release", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const [first, second] = await twoRunsOfOneThread(s);
      expect((await s.runs.claimNext({ owner: "executor", leaseMs: 60_000 }))!.run.run_id).toBe(first);
      // A canceller (no owner) ends it while its executor still unwinds.
      expect(await other.runs.transition(first, "interrupted", { from: ["pending", "running"] })).toMatchObject({ status: "interrupted" });
      expect(await other.runs.getLease(first)).toMatchObject({ owner: "executor" });
      expect(await other.runs.claimNext({ owner: "third", leaseMs: 60_000 })).toBeNull();
      // Not `running`: nothing to renew, nothing to requeue.
      expect(await s.runs.renewLeases([first], "executor", 60_000)).toBe(0);
      expect(await other.runs.requeue(first, { owner: "executor" })).toBeNull();
      expect(await other.runs.requeue(first, { expiredBefore: addMs(new Date().toISOString(), 3_600_000) })).toBeNull();
      expect(await other.runs.listLeases(10)).toEqual([]);
      // Only the holder releases it.
      expect(await other.runs.releaseLease(first, "third")).toBe(false);
      expect(await s.runs.releaseLease(first, "executor")).toBe(true);
      expect(await s.runs.getLease(first)).toBeNull();
      expect(await s.runs.releaseLease(first, "executor")).toBe(false);
      expect(await other.runs.claimNext({ owner: "third", leaseMs: 60_000 })).toMatchObject({ run: { run_id: second }, attempt: 1 });
    });

    it("a cancelled run's lease that lapsed (its executor died) no longer holds the thread", async () => {
      const s = await h.open();
      const [first, second] = await twoRunsOfOneThread(s);
      // Claimed an hour ago under a 1 s lease.
      const claimedAt = addMs(new Date().toISOString(), -3_600_000 + 5_000);
      expect((await s.runs.claimNext({ owner: "dead", leaseMs: 1_000, now: claimedAt }))!.run.run_id).toBe(first);
      await s.runs.transition(first, "interrupted", { from: ["running"] });
      expect(await s.runs.claimNext({ owner: "alive", leaseMs: 60_000 })).toMatchObject({ run: { run_id: second } });
    });

    it("a running run is never released; releaseLease of an unknown run changes nothing", async () => {
      const s = await h.open();
      const [first] = await twoRunsOfOneThread(s);
      await s.runs.claimNext({ owner: "executor", leaseMs: 60_000 });
      expect(await s.runs.releaseLease(first, "executor")).toBe(false);
      expect(await s.runs.getLease(first)).toMatchObject({ owner: "executor", expires_at: expect.any(String) });
      expect(await s.runs.releaseLease(uid(), "executor")).toBe(false);
      expect(await s.runs.getLease(uid())).toBeNull();
    });

    it("the owner guard: a stale executor's terminal write changes nothing once another owner holds the run", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const [first] = await twoRunsOfOneThread(s);
      const claimedAt = addMs(new Date().toISOString(), -3_600_000 + 5_000);
      await s.runs.claimNext({ owner: "stale", leaseMs: 1_000, now: claimedAt });
      // The stale owner's lease lapsed: a reaper requeues the run and another owner claims it.
      expect(await other.runs.requeue(first, { expiredBefore: new Date().toISOString() })).not.toBeNull();
      expect(await other.runs.claimNext({ owner: "fresh", leaseMs: 60_000 })).toMatchObject({ run: { run_id: first }, attempt: 2 });
      expect(await s.runs.transition(first, "success", { from: ["running"], owner: "stale" })).toBeNull();
      expect(await s.runs.renewLeases([first], "stale", 60_000)).toBe(0);
      expect(await s.runs.releaseLease(first, "stale")).toBe(false);
      expect((await s.runs.get(first))!.status).toBe("running");
      expect(await other.runs.getLease(first)).toMatchObject({ owner: "fresh" });
      // The owner's own write lands, and keeps its lease until it releases it.
      expect(await other.runs.transition(first, "success", { from: ["running"], owner: "fresh" })).toMatchObject({ status: "success" });
      expect(await other.runs.getLease(first)).toMatchObject({ owner: "fresh" });
      expect(await other.runs.releaseLease(first, "fresh")).toBe(true);
    });
  });
}
