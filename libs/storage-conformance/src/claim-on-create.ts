import { describe, expect, it } from "vitest";
import { addMs, ConflictError, NotFoundError, type NewRun, type Run, type RunClaim, type Storage } from "@agent-server/core";
import { RUN_KEYS, newThread, uid, type Harness } from "./harness.js";

const LEASE_MS = 600_000;

/** An assistant and an idle thread for the runs of one test. */
async function threadAndAssistant(s: Storage): Promise<{ thread_id: string; assistant_id: string }> {
  const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
  const { thread_id } = await newThread(s);
  return { thread_id, assistant_id: assistant.assistant_id };
}

/** `runs.create` with `claim` (and, unless `reject` is false, `rejectIfThreadActive`), as the engine admits a run. */
function createClaimed(
  s: Storage,
  input: Omit<NewRun, "run_id"> & { run_id?: string },
  claim: RunClaim = { owner: "w1", leaseMs: LEASE_MS },
  reject = true,
): Promise<Run> {
  return s.runs.create({ run_id: uid(), ...input }, { rejectIfThreadActive: reject, claim });
}

/** Ends a run as its executor does: the terminal status and the lease's release (one `settle` when the driver has it). */
async function finish(s: Storage, runId: string, owner: string): Promise<void> {
  if (s.runs.settle) {
    const settled = await s.runs.settle(runId, "success", {
      from: ["running"],
      owner,
      thread: { status: "idle", values: { done: runId } },
      releaseLease: true,
    });
    expect(settled?.run).toMatchObject({ run_id: runId, status: "success" });
    return;
  }
  expect(await s.runs.transition(runId, "success", { from: ["running"], owner })).toMatchObject({ status: "success" });
  expect(await s.runs.releaseLease(runId, owner)).toBe(true);
}

/**
 * `RunRepo.create` with `claim`, for a driver that applies it: a pending run due now is inserted already
 * claimed, as `claimNext` would claim it, in the same atomic step as the `rejectIfThreadActive` check —
 * unless another run of its thread is pending, running or still holds a live lease.
 */
export function describeClaimOnCreate(h: Harness): void {
  describe("a run inserted already claimed (RunRepo.create with claim)", () => {
    it("is inserted running under the owner's lease, its thread busy, and the queue does not hand it out again", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const ids = await threadAndAssistant(s);
      const idleBefore = (await s.threads.get(ids.thread_id))!;
      expect(idleBefore.status).toBe("idle");
      const before = Date.now();
      const run = await createClaimed(s, { ...ids, metadata: { n: 1 } }, { owner: "w1", leaseMs: LEASE_MS });
      const after = Date.now();
      expect(run).toMatchObject({ ...ids, status: "running", metadata: { n: 1 } });
      expect(Object.keys(run).sort()).toEqual(RUN_KEYS);
      expect(await other.runs.get(run.run_id)).toEqual(run);
      // Leased to the owner until now + leaseMs (the driver's clock: a few seconds' leeway).
      const lease = await other.runs.getLease(run.run_id);
      expect(lease?.owner).toBe("w1");
      const expires = Date.parse(lease!.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + LEASE_MS - 5_000);
      expect(expires).toBeLessThanOrEqual(after + LEASE_MS + 5_000);
      expect(await other.runs.listLeases(10)).toEqual([{ run, owner: "w1", expires_at: lease!.expires_at, attempt: 1 }]);
      expect(await other.runs.listExpiredLeases(new Date().toISOString(), 10)).toEqual([]);
      // The thread is busy, as the claim marks it (and nothing else of it changes).
      const busy = (await other.threads.get(ids.thread_id))!;
      expect(busy).toEqual({ ...idleBefore, status: "busy", updated_at: busy.updated_at });
      // Not in the queue: no claim takes it, and it is not pending.
      expect(await other.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toBeNull();
      if (other.runs.countPending) expect(await other.runs.countPending()).toBe(0);
      expect(await other.runs.search({ thread_id: ids.thread_id, status: "pending" })).toEqual([]);
      // The owner renews it; nobody else does, nor ends it.
      expect(await other.runs.renewLeases([run.run_id], "w2", LEASE_MS)).toBe(0);
      expect(await s.runs.renewLeases([run.run_id], "w1", LEASE_MS * 2)).toBe(1);
      expect(Date.parse((await other.runs.getLease(run.run_id))!.expires_at)).toBeGreaterThan(expires);
      expect(await other.runs.transition(run.run_id, "success", { from: ["running"], owner: "w2" })).toBeNull();
      expect((await s.runs.get(run.run_id))!.status).toBe("running");
    });

    it("keeps the run's internal marker, as a run claimed from the queue does", async () => {
      const s = await h.open();
      const ids = await threadAndAssistant(s);
      const internal = { captureResult: true, taskId: uid() };
      const run = await s.runs.create(
        { run_id: uid(), ...ids },
        { rejectIfThreadActive: true, internal, claim: { owner: "w1", leaseMs: LEASE_MS } },
      );
      expect(run.status).toBe("running");
      expect(await s.runs.getInternal(run.run_id)).toMatchObject(internal);
    });

    it("its owner's settle (releaseLease) ends it and frees the thread: the thread's next run is claimed", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const ids = await threadAndAssistant(s);
      const run = await createClaimed(s, ids);
      // Queued behind it (no reject check): waits until the claimed run is done with the thread.
      const next = await other.runs.create({ run_id: uid(), ...ids });
      expect(next.status).toBe("pending");
      expect(await other.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toBeNull();
      await finish(s, run.run_id, "w1");
      expect(await s.runs.getLease(run.run_id)).toBeNull();
      expect((await s.runs.get(run.run_id))!.status).toBe("success");
      expect(await other.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toMatchObject({ run: { run_id: next.run_id }, attempt: 1 });
      await finish(other, next.run_id, "w2");
      // A free thread: the next run with `claim` is inserted claimed again.
      const third = await createClaimed(other, ids, { owner: "w3", leaseMs: LEASE_MS });
      expect(third.status).toBe("running");
      expect(await s.runs.getLease(third.run_id)).toMatchObject({ owner: "w3" });
      expect((await s.threads.get(ids.thread_id))!.status).toBe("busy");
    });

    it("a thread whose cancelled run still holds a live lease: inserted pending, claimable once that lease is released", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const ids = await threadAndAssistant(s);
      const first = await createClaimed(s, ids, { owner: "executor", leaseMs: LEASE_MS });
      // A canceller (no owner) ends it while its executor still unwinds.
      expect(await other.runs.transition(first.run_id, "interrupted", { from: ["pending", "running"] })).toMatchObject({
        status: "interrupted",
      });
      const second = await createClaimed(other, ids, { owner: "w2", leaseMs: LEASE_MS });
      expect(second.status).toBe("pending");
      expect(await s.runs.get(second.run_id)).toMatchObject({ status: "pending" });
      expect(await s.runs.getLease(second.run_id)).toBeNull();
      expect(await s.runs.getLease(first.run_id)).toMatchObject({ owner: "executor" });
      expect((await s.runs.listLeases(10)).map((l) => l.run.run_id)).toEqual([]);
      expect(await other.runs.claimNext({ owner: "w3", leaseMs: 60_000 })).toBeNull();
      expect(await s.runs.releaseLease(first.run_id, "executor")).toBe(true);
      expect(await other.runs.claimNext({ owner: "w3", leaseMs: 60_000 })).toMatchObject({
        run: { run_id: second.run_id, status: "running" },
        attempt: 1,
      });
    });

    it("a cancelled run's lapsed lease (its executor died) no longer holds the thread: the new run is claimed", async () => {
      const s = await h.open();
      const ids = await threadAndAssistant(s);
      const first = await s.runs.create({ run_id: uid(), ...ids, created_at: new Date(Date.now() - 3_600_000).toISOString() });
      // Claimed an hour ago under a 1 s lease, then cancelled.
      const claimedAt = addMs(new Date().toISOString(), -3_600_000 + 5_000);
      expect((await s.runs.claimNext({ owner: "dead", leaseMs: 1_000, now: claimedAt }))!.run.run_id).toBe(first.run_id);
      await s.runs.transition(first.run_id, "interrupted", { from: ["running"] });
      const second = await createClaimed(s, ids, { owner: "alive", leaseMs: LEASE_MS });
      expect(second.status).toBe("running");
      expect(await s.runs.getLease(second.run_id)).toMatchObject({ owner: "alive" });
    });

    it("an active run on the thread: ConflictError and nothing inserted; an unknown thread: NotFoundError", async () => {
      const s = await h.open();
      const ids = await threadAndAssistant(s);
      // A pending run (deferred: the queue leaves it alone).
      const pending = await s.runs.create({ run_id: uid(), ...ids, created_at: new Date(Date.now() + 3_600_000).toISOString() });
      const threadBefore = (await s.threads.get(ids.thread_id))!;
      const rejected = uid();
      await expect(createClaimed(s, { ...ids, run_id: rejected })).rejects.toBeInstanceOf(ConflictError);
      expect(await s.runs.get(rejected)).toBeNull();
      expect(await s.runs.getLease(rejected)).toBeNull();
      expect((await s.runs.search({ thread_id: ids.thread_id })).map((r) => r.run_id)).toEqual([pending.run_id]);
      expect(await s.threads.get(ids.thread_id)).toEqual(threadBefore);
      expect(await s.runs.listLeases(10)).toEqual([]);
      // A running one (claimed on create) rejects the next the same way.
      const running = await createClaimed(s, { ...(await threadAndAssistant(s)) });
      await expect(createClaimed(s, { thread_id: running.thread_id, assistant_id: running.assistant_id })).rejects.toBeInstanceOf(
        ConflictError,
      );
      expect(await s.runs.search({ thread_id: running.thread_id })).toHaveLength(1);
      expect((await s.runs.listLeases(10)).map((l) => l.run.run_id)).toEqual([running.run_id]);
      await expect(createClaimed(s, { thread_id: uid(), assistant_id: ids.assistant_id })).rejects.toBeInstanceOf(NotFoundError);
    });

    it("concurrent creates with claim on one thread: with the reject check exactly one is inserted, claimed", async () => {
      const s = await h.open();
      const drivers = h.hasSibling ? [s, await h.sibling(s), await h.sibling(s)] : [s];
      const ids = await threadAndAssistant(s);
      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => createClaimed(drivers[i % drivers.length], ids, { owner: `w${i}`, leaseMs: LEASE_MS })),
      );
      const created = attempts.filter((a): a is PromiseFulfilledResult<Run> => a.status === "fulfilled").map((a) => a.value);
      expect(created).toHaveLength(1);
      expect(created[0]!.status).toBe("running");
      for (const a of attempts) if (a.status === "rejected") expect(a.reason).toBeInstanceOf(ConflictError);
      expect(await s.runs.search({ thread_id: ids.thread_id })).toHaveLength(1);
      expect(await s.runs.listLeases(10)).toMatchObject([{ run: { run_id: created[0]!.run_id }, attempt: 1 }]);
    });

    it("concurrent creates with claim on one thread: without the reject check all are inserted, exactly one claimed", async () => {
      const s = await h.open();
      const drivers = h.hasSibling ? [s, await h.sibling(s), await h.sibling(s)] : [s];
      const ids = await threadAndAssistant(s);
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, i) => createClaimed(drivers[i % drivers.length], ids, { owner: `w${i}`, leaseMs: LEASE_MS }, false)),
      );
      const running = created.filter((r) => r.status === "running");
      expect(running).toHaveLength(1);
      expect(created.filter((r) => r.status === "pending")).toHaveLength(5);
      expect(await s.runs.listLeases(10)).toMatchObject([{ run: { run_id: running[0]!.run_id }, attempt: 1 }]);
      expect(await s.runs.claimNext({ owner: "x", leaseMs: 60_000 })).toBeNull();
    });

    it("a lapsed claimed-on-create lease is requeued and claimed again by claimNext as attempt 2", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const ids = await threadAndAssistant(s);
      const run = await createClaimed(s, { ...ids, metadata: { n: 1 } }, { owner: "dead", leaseMs: 1_000 });
      expect(run.status).toBe("running");
      // An hour from now the 1 s lease has long lapsed.
      const later = addMs(new Date().toISOString(), 3_600_000);
      expect((await other.runs.listExpiredLeases(later, 10)).map((r) => r.run_id)).toEqual([run.run_id]);
      const requeued = await other.runs.requeue(run.run_id, { expiredBefore: later });
      expect(requeued).toMatchObject({ run: { run_id: run.run_id, status: "pending", metadata: { n: 1, run_attempt: 2 } }, attempt: 1 });
      expect(await other.runs.getLease(run.run_id)).toBeNull();
      expect(await other.runs.claimNext({ owner: "alive", leaseMs: 60_000 })).toMatchObject({
        run: { run_id: run.run_id, status: "running" },
        attempt: 2,
      });
      expect(await other.runs.listLeases(10)).toMatchObject([{ run: { run_id: run.run_id }, owner: "alive", attempt: 2 }]);
      // The first owner's lease is gone: its writes change nothing.
      expect(await s.runs.renewLeases([run.run_id], "dead", LEASE_MS)).toBe(0);
      expect(await s.runs.transition(run.run_id, "success", { from: ["running"], owner: "dead" })).toBeNull();
      // Start-up recovery by owner works on it too.
      expect(await other.runs.requeue(run.run_id, { owner: "alive" })).toMatchObject({ attempt: 2 });
    });

    it("without rejectIfThreadActive: claimed on a free thread, else queued pending behind the thread's run (no ConflictError)", async () => {
      const s = await h.open();
      const ids = await threadAndAssistant(s);
      const first = await createClaimed(s, ids, { owner: "w1", leaseMs: LEASE_MS }, false);
      expect(first.status).toBe("running");
      expect(await s.runs.getLease(first.run_id)).toMatchObject({ owner: "w1" });
      expect((await s.threads.get(ids.thread_id))!.status).toBe("busy");
      // Behind a running run: pending, no lease.
      const second = await createClaimed(s, ids, { owner: "w2", leaseMs: LEASE_MS }, false);
      expect(second.status).toBe("pending");
      expect(await s.runs.getLease(second.run_id)).toBeNull();
      // Behind a pending run (even once the running one is done with the thread): pending, in queue order.
      await finish(s, first.run_id, "w1");
      const third = await createClaimed(s, ids, { owner: "w3", leaseMs: LEASE_MS }, false);
      expect(third.status).toBe("pending");
      expect(await s.runs.getLease(third.run_id)).toBeNull();
      expect(await s.runs.claimNext({ owner: "w4", leaseMs: 60_000 })).toMatchObject({ run: { run_id: second.run_id }, attempt: 1 });
      expect((await s.runs.search({ thread_id: ids.thread_id, status: "pending" })).map((r) => r.run_id)).toEqual([third.run_id]);
    });

    it("claim is ignored for a run deferred to the future and for a status other than pending", async () => {
      const s = await h.open();
      const deferredAt = new Date(Date.now() + 3_600_000).toISOString();
      const deferredIds = await threadAndAssistant(s);
      const deferred = await createClaimed(s, { ...deferredIds, created_at: deferredAt });
      expect(deferred).toMatchObject({ status: "pending", created_at: deferredAt });
      expect(await s.runs.getLease(deferred.run_id)).toBeNull();
      expect((await s.threads.get(deferredIds.thread_id))!.status).toBe("idle");
      expect(await s.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toBeNull();
      expect(await s.runs.claimNext({ owner: "w2", leaseMs: 60_000, now: addMs(deferredAt, 1) })).toMatchObject({
        run: { run_id: deferred.run_id },
        attempt: 1,
      });

      const doneIds = await threadAndAssistant(s);
      const done = await createClaimed(s, { ...doneIds, status: "success" });
      expect(done.status).toBe("success");
      expect(await s.runs.getLease(done.run_id)).toBeNull();
      expect((await s.threads.get(doneIds.thread_id))!.status).toBe("idle");
      expect(await s.runs.listLeases(10)).toMatchObject([{ run: { run_id: deferred.run_id } }]);
    });
  });
}

/** For a driver declared without it: `claim` is ignored, the run is inserted pending and the queue takes it. */
export function describeClaimOnCreateAbsent(h: Harness): void {
  describe("a run inserted already claimed (ignored by this driver)", () => {
    it("create with claim inserts a pending run without a lease, which claimNext then takes", async () => {
      const s = await h.open();
      const ids = await threadAndAssistant(s);
      const run = await createClaimed(s, ids);
      expect(run.status).toBe("pending");
      expect(await s.runs.get(run.run_id)).toMatchObject({ status: "pending" });
      expect(await s.runs.getLease(run.run_id)).toBeNull();
      expect((await s.threads.get(ids.thread_id))!.status).toBe("idle");
      expect(await s.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toMatchObject({
        run: { run_id: run.run_id, status: "running" },
        attempt: 1,
      });
      expect(await s.runs.getLease(run.run_id)).toMatchObject({ owner: "w2" });
    });
  });
}
