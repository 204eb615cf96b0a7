import { describe, expect, it } from "vitest";
import { addMs, type ClaimedRun, type Storage } from "@agent-server/core";
import { RUN_KEYS, newThread, uid, type Harness } from "./harness.js";

/** Pending runs on fresh threads, created_at spaced 1 s apart from `base` (oldest first). */
async function pendingRuns(s: Storage, base: string, count: number, threadId?: string): Promise<string[]> {
  const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const thread_id = threadId ?? (await newThread(s)).thread_id;
    const run = await s.runs.create({
      run_id: uid(),
      thread_id,
      assistant_id: assistant.assistant_id,
      created_at: addMs(base, i * 1000),
      metadata: { n: i },
    });
    ids.push(run.run_id);
  }
  return ids;
}

const past = (ms: number) => new Date(Date.now() - ms).toISOString();

export function describeQueue(h: Harness): void {
  describe("run queue: claimNext, leases", () => {
    it("claimNext hands over the run's internal marker when it reports one", async () => {
      const s = await h.open();
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const { thread_id } = await newThread(s);
      const internal = { captureResult: true, taskId: uid() };
      const run = await s.runs.create(
        { run_id: uid(), thread_id, assistant_id: assistant.assistant_id, created_at: past(1000) },
        { internal },
      );
      const claimed = await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 });
      expect(claimed!.run.run_id).toBe(run.run_id);
      if (claimed!.internal !== undefined) expect(claimed!.internal).toEqual(await s.runs.getInternal(run.run_id));
      expect(await s.runs.getInternal(run.run_id)).toMatchObject(internal);
    });

    it("claimNext takes the oldest eligible pending run, marks it running and counts the attempt", async () => {
      const s = await h.open();
      const base = past(3_600_000);
      const [a, b] = await pendingRuns(s, base, 2);
      const idleBefore = (await s.threads.get((await s.runs.get(a))!.thread_id))!;
      expect(idleBefore.status).toBe("idle");
      const first = await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 });
      expect(first).toMatchObject({ run: { run_id: a, status: "running" }, attempt: 1 });
      expect(Object.keys(first!.run).sort()).toEqual(RUN_KEYS);
      // The claim may hand over the run's internal marker (none here), so the executor need not read it.
      if (first!.internal !== undefined) expect(first!.internal).toEqual({});
      expect((await s.runs.get(a))!.status).toBe("running");
      // The same write marks the run's thread busy (and nothing else of it changes).
      const busy = (await s.threads.get(idleBefore.thread_id))!;
      expect(busy).toEqual({ ...idleBefore, status: "busy", updated_at: busy.updated_at });
      expect(busy.updated_at >= idleBefore.updated_at).toBe(true);
      expect((await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 }))!.run.run_id).toBe(b);
      expect(await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 })).toBeNull();
      // A run put back to pending is claimed again, as attempt 2.
      await s.runs.transition(a, "pending", { from: ["running"] });
      expect(await s.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toMatchObject({ run: { run_id: a }, attempt: 2 });
    });

    it("claimNext skips runs deferred to the future (created_at > now) and non-pending runs", async () => {
      const s = await h.open();
      const thread = await newThread(s);
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const deferredAt = new Date(Date.now() + 3_600_000).toISOString();
      const deferred = await s.runs.create({
        run_id: uid(),
        thread_id: thread.thread_id,
        assistant_id: assistant.assistant_id,
        created_at: deferredAt,
      });
      await s.runs.create({
        run_id: uid(),
        thread_id: (await newThread(s)).thread_id,
        assistant_id: assistant.assistant_id,
        status: "success",
      });
      expect(await s.runs.claimNext({ owner: "w", leaseMs: 1000 })).toBeNull();
      expect((await s.runs.get(deferred.run_id))!.status).toBe("pending");
      // Once `now` reaches created_at it is eligible.
      const claimed = await s.runs.claimNext({ owner: "w", leaseMs: 1000, now: addMs(deferredAt, 1) });
      expect(claimed!.run.run_id).toBe(deferred.run_id);
    });

    it("claimNext never runs two runs of one thread at once, and moves on to other threads", async () => {
      const s = await h.open();
      const base = past(3_600_000);
      const thread = await newThread(s);
      const [t1, t2] = await pendingRuns(s, base, 2, thread.thread_id);
      const [other] = await pendingRuns(s, addMs(base, 5_000), 1);
      expect((await s.runs.claimNext({ owner: "w", leaseMs: 60_000 }))!.run.run_id).toBe(t1);
      // t2 is older than `other`, but its thread is busy.
      expect((await s.runs.claimNext({ owner: "w", leaseMs: 60_000 }))!.run.run_id).toBe(other);
      expect(await s.runs.claimNext({ owner: "w", leaseMs: 60_000 })).toBeNull();
      await s.runs.transition(t1, "success", { from: ["running"], owner: "w" });
      // Ended, but its executor still holds it until its settlement is done.
      expect(await s.runs.claimNext({ owner: "w", leaseMs: 60_000 })).toBeNull();
      await s.runs.releaseLease(t1, "w");
      expect((await s.runs.claimNext({ owner: "w", leaseMs: 60_000 }))!.run.run_id).toBe(t2);
    });

    it("concurrent claimNext calls never get the same run nor two runs of one thread", async () => {
      const s = await h.open();
      const drivers = h.hasSibling ? [s, await h.sibling(s), await h.sibling(s)] : [s];
      const base = past(3_600_000);
      const runIds = await pendingRuns(s, base, 6);
      const sharedThread = await newThread(s);
      const shared = await pendingRuns(s, base, 3, sharedThread.thread_id);
      const claims = await Promise.all(
        Array.from({ length: 16 }, (_, i) => drivers[i % drivers.length].runs.claimNext({ owner: `w${i}`, leaseMs: 60_000 })),
      );
      const claimed = claims.filter((c): c is ClaimedRun => c !== null).map((c) => c.run.run_id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.filter((id) => shared.includes(id))).toHaveLength(1);
      expect(claimed.filter((id) => runIds.includes(id)).sort()).toEqual([...runIds].sort());
      const running = await s.runs.search({ status: "running", limit: 100 });
      expect(running).toHaveLength(7);
    });

    it("renewLeases extends only the owner's running runs; listExpiredLeases lists lapsed leases, oldest first", async () => {
      const s = await h.open();
      const base = past(3_600_000);
      const [a, b, c] = await pendingRuns(s, base, 3);
      // Claims with an explicit `now` one hour ago: leases of 1 s and 2 s lapsed long since.
      const claimA = await s.runs.claimNext({ owner: "w1", leaseMs: 2_000, now: addMs(base, 10_000) });
      const claimB = await s.runs.claimNext({ owner: "w2", leaseMs: 1_000, now: addMs(base, 10_000) });
      const claimC = await s.runs.claimNext({ owner: "w1", leaseMs: 3_600_000 * 5 });
      expect([claimA!.run.run_id, claimB!.run.run_id, claimC!.run.run_id]).toEqual([a, b, c]);
      const now = new Date().toISOString();
      expect((await s.runs.listExpiredLeases(now, 10)).map((r) => r.run_id)).toEqual([b, a]);
      expect((await s.runs.listExpiredLeases(now, 1)).map((r) => r.run_id)).toEqual([b]);
      expect(await s.runs.listExpiredLeases(addMs(base, 10_500), 10)).toEqual([]);
      for (const r of await s.runs.listExpiredLeases(now, 10)) expect(Object.keys(r).sort()).toEqual(RUN_KEYS);

      expect(await s.runs.renewLeases([a, b, c, uid()], "w1", 60_000)).toBe(2);
      expect((await s.runs.listExpiredLeases(new Date().toISOString(), 10)).map((r) => r.run_id)).toEqual([b]);
      expect(await s.runs.renewLeases([b], "w1", 60_000)).toBe(0);
      expect(await s.runs.renewLeases([b], "w2", 60_000)).toBe(1);
      expect(await s.runs.listExpiredLeases(new Date().toISOString(), 10)).toEqual([]);
      // A run that is no longer running has no lease to renew or to expire.
      await s.runs.transition(a, "success");
      expect(await s.runs.renewLeases([a], "w1", 60_000)).toBe(0);
      // c's 5 h lease was renewed to 60 s above; both lapse within two hours (same-ms renewals: order not asserted).
      const lapsed = await s.runs.listExpiredLeases(addMs(new Date().toISOString(), 3_600_000 * 2), 10);
      expect(lapsed.map((r) => r.run_id).sort()).toEqual([b, c].sort());
    });

    it("listLeases lists running runs under a lease with owner, expiry and attempts, oldest lease first", async () => {
      const s = await h.open();
      const base = past(3_600_000);
      const [a, b, c] = await pendingRuns(s, base, 3);
      await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 });
      await s.runs.claimNext({ owner: "w2", leaseMs: 1_000, now: addMs(base, 10_000) });
      expect(await s.runs.listLeases(10)).toEqual([
        { run: expect.objectContaining({ run_id: b, status: "running" }), owner: "w2", expires_at: addMs(base, 11_000), attempt: 1 },
        { run: expect.objectContaining({ run_id: a, status: "running" }), owner: "w1", expires_at: expect.any(String), attempt: 1 },
      ]);
      expect((await s.runs.listLeases(1)).map((l) => l.run.run_id)).toEqual([b]);
      for (const lease of await s.runs.listLeases(10)) expect(Object.keys(lease.run).sort()).toEqual(RUN_KEYS);
      // Pending and finished runs hold no lease.
      await s.runs.transition(a, "success");
      expect((await s.runs.listLeases(10)).map((l) => l.run.run_id)).toEqual([b]);
      expect((await s.runs.get(c))!.status).toBe("pending");
    });

    it("a claim that saw no other claimable run says so (more: false); with another waiting it never does", async () => {
      const s = await h.open();
      const [first, second] = await pendingRuns(s, past(3_600_000), 2);
      const claimedFirst = await s.runs.claimNext({ owner: "w", leaseMs: 60_000 });
      expect(claimedFirst?.run.run_id).toBe(first);
      expect(claimedFirst?.more).not.toBe(false);
      const claimedSecond = await s.runs.claimNext({ owner: "w", leaseMs: 60_000 });
      expect(claimedSecond?.run.run_id).toBe(second);
      // A driver may leave `more` out (the pool then asks again); one that reports it must be right.
      if (claimedSecond?.more !== undefined) expect(claimedSecond.more).toBe(false);
      expect(await s.runs.claimNext({ owner: "w", leaseMs: 60_000 })).toBeNull();
    });

    it("requeue puts a lapsed claim back to pending without its lease; the next claim is the next attempt", async () => {
      const s = await h.open();
      const base = past(3_600_000);
      const [a] = await pendingRuns(s, base, 1);
      await s.runs.claimNext({ owner: "dead", leaseMs: 1_000, now: addMs(base, 10_000) });
      const requeued = await s.runs.requeue(a, { expiredBefore: new Date().toISOString() });
      expect(requeued).toMatchObject({ run: { run_id: a, status: "pending", metadata: { run_attempt: 2 } }, attempt: 1 });
      expect((await s.runs.get(a))!.metadata).toEqual({ n: 0, run_attempt: 2 });
      expect(Object.keys(requeued!.run).sort()).toEqual(RUN_KEYS);
      expect((await s.runs.get(a))!.status).toBe("pending");
      expect(await s.runs.listLeases(10)).toEqual([]);
      expect(await s.runs.listExpiredLeases(addMs(new Date().toISOString(), 3_600_000), 10)).toEqual([]);
      expect(await s.runs.claimNext({ owner: "alive", leaseMs: 60_000 })).toMatchObject({ run: { run_id: a }, attempt: 2 });
      expect(await s.runs.listLeases(10)).toMatchObject([{ run: { run_id: a }, owner: "alive", attempt: 2 }]);
      // By owner (start-up recovery: that process is gone), whatever the lease's end.
      expect(await s.runs.requeue(a, { owner: "alive" })).toMatchObject({ run: { run_id: a, status: "pending" }, attempt: 2 });
      expect((await s.runs.get(a))!.metadata).toEqual({ n: 0, run_attempt: 3 });
      expect(await s.runs.claimNext({ owner: "w", leaseMs: 60_000 })).toMatchObject({ run: { run_id: a }, attempt: 3 });
    });

    it("requeue with handBack counts the hand-back in the run's internal, keeping what it held; without, nothing is counted", async () => {
      const s = await h.open();
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const { thread_id } = await newThread(s);
      const run = await s.runs.create(
        { run_id: uid(), thread_id, assistant_id: assistant.assistant_id },
        { internal: { captureResult: true, taskId: "t" } },
      );
      for (const expected of [1, 2]) {
        await s.runs.claimNext({ owner: "w", leaseMs: 60_000 });
        expect(await s.runs.requeue(run.run_id, { owner: "w" }, { handBack: true })).toMatchObject({ run: { run_id: run.run_id } });
        expect(await s.runs.getInternal(run.run_id)).toEqual({ captureResult: true, taskId: "t", handBacks: expected });
      }
      const claimed = await s.runs.claimNext({ owner: "w", leaseMs: 60_000 });
      expect(claimed).toMatchObject({ attempt: 3, internal: { handBacks: 2 } });
      expect(await s.runs.requeue(run.run_id, { owner: "w" })).not.toBeNull();
      expect((await s.runs.getInternal(run.run_id))?.handBacks).toBe(2);
      // A run without internal facts gets them.
      const plain = (await pendingRuns(s, past(3_600_000), 1))[0]!;
      await s.runs.claimNext({ owner: "v", leaseMs: 60_000 });
      expect(await s.runs.requeue(plain, { owner: "v" }, { handBack: true })).not.toBeNull();
      expect(await s.runs.getInternal(plain)).toEqual({ handBacks: 1 });
    });

    it("requeue is a compare-and-set: a live, renewed or re-claimed lease, another owner, a finished run or an empty guard stay", async () => {
      const s = await h.open();
      const base = past(3_600_000);
      const [live, renewed, other, finished] = await pendingRuns(s, base, 4);
      const now = new Date().toISOString();
      await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 });
      await s.runs.claimNext({ owner: "w1", leaseMs: 1_000, now: addMs(base, 10_000) });
      await s.runs.claimNext({ owner: "w2", leaseMs: 1_000, now: addMs(base, 10_000) });
      await s.runs.claimNext({ owner: "w2", leaseMs: 1_000, now: addMs(base, 10_000) });
      expect(await s.runs.requeue(live, { expiredBefore: now })).toBeNull();
      expect(await s.runs.renewLeases([renewed], "w1", 60_000)).toBe(1);
      expect(await s.runs.requeue(renewed, { expiredBefore: now })).toBeNull();
      expect(await s.runs.requeue(other, { expiredBefore: now, owner: "w1" })).toBeNull();
      expect(await s.runs.requeue(other, {})).toBeNull();
      await s.runs.transition(finished, "success");
      expect(await s.runs.requeue(finished, { expiredBefore: now })).toBeNull();
      expect(await s.runs.requeue(finished, { owner: "w2" })).toBeNull();
      expect(await s.runs.requeue(uid(), { owner: "w2" })).toBeNull();
      for (const id of [live, renewed, other]) expect((await s.runs.get(id))!.status).toBe("running");
      expect((await s.runs.get(finished))!.status).toBe("success");
      expect(await s.runs.requeue(other, { expiredBefore: now, owner: "w2" })).toMatchObject({ run: { run_id: other } });
    });

    it("two reapers requeueing one lapsed run at once: exactly one gets it back, and it is claimed once", async () => {
      const s = await h.open();
      const drivers = h.hasSibling ? [s, await h.sibling(s), await h.sibling(s)] : [s];
      const base = past(3_600_000);
      const runIds = await pendingRuns(s, base, 3);
      for (let i = 0; i < runIds.length; i++) await s.runs.claimNext({ owner: "dead", leaseMs: 1_000, now: addMs(base, 10_000) });
      const now = new Date().toISOString();
      const attempts = await Promise.all(
        runIds.flatMap((id) =>
          Array.from({ length: 4 }, (_, i) =>
            drivers[i % drivers.length].runs.requeue(id, i % 2 === 0 ? { expiredBefore: now } : { owner: "dead" }),
          ),
        ),
      );
      const won = attempts.filter((r): r is ClaimedRun => r !== null).map((r) => r.run.run_id);
      expect(won.sort()).toEqual([...runIds].sort());
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => drivers[i % drivers.length].runs.claimNext({ owner: `w${i}`, leaseMs: 60_000 })),
      );
      const claimed = claims.filter((c): c is ClaimedRun => c !== null);
      expect(claimed.map((c) => c.run.run_id).sort()).toEqual([...runIds].sort());
      expect(claimed.every((c) => c.attempt === 2)).toBe(true);
    });

    it("countPending (when the driver has it) counts pending runs, deferred ones too, and nothing else", async () => {
      const s = await h.open();
      const countPending = s.runs.countPending?.bind(s.runs);
      if (!countPending) return;
      expect(await countPending()).toBe(0);
      const [claimedId, ended] = await pendingRuns(s, past(3_600_000), 3);
      // Deferred by after_seconds: still in the queue.
      await pendingRuns(s, new Date(Date.now() + 3_600_000).toISOString(), 1);
      expect(await countPending()).toBe(4);
      expect((await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 }))!.run.run_id).toBe(claimedId);
      await s.runs.transition(ended, "interrupted", { from: ["pending"] });
      expect(await countPending()).toBe(2);
    });
  });
}
