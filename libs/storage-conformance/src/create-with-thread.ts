import { describe, expect, it } from "vitest";
import { addMs, ConflictError, ThreadExistsError, WireSerializationError, type Storage } from "@agent-server/core";
import { RUN_KEYS, newThread, uid, type Harness } from "./harness.js";

const LEASE_MS = 600_000;

async function assistantOf(s: Storage): Promise<string> {
  return (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
}

/** The thread and the run a test creates together, under fresh ids. */
function ids(assistantId: string): { thread_id: string; run_id: string; assistant_id: string } {
  return { thread_id: uid(), run_id: uid(), assistant_id: assistantId };
}

/** Nothing of `threadId` exists: no thread, no run of it. */
async function expectNothingOf(s: Storage, threadId: string, runId: string): Promise<void> {
  expect(await s.threads.get(threadId)).toBeNull();
  expect(await s.runs.get(runId)).toBeNull();
  expect(await s.runs.search({ thread_id: threadId })).toEqual([]);
  expect(await s.runs.getLease(runId)).toBeNull();
}

/**
 * `RunRepo.createWithThread`: a new thread and its first run in one transaction (an A2A message without a
 * context, a stateless run, `if_not_exists: "create"`), the thread already `busy` when the run is claimed.
 */
export function describeCreateWithThread(h: Harness, declared?: boolean): void {
  /**
   * A driver for one test. Declared (`true`): the contract is checked. Not stated (undefined, a wiring
   * older than the option): the driver states it; one without the method gets the absence check instead.
   */
  const open = async (): Promise<Storage | null> => {
    const s = await h.open();
    if (declared === undefined && !("createWithThread" in s.runs && s.runs.createWithThread)) {
      expect(s.runs.createWithThread).toBeUndefined();
      return null;
    }
    return s;
  };
  describe("a run created with its new thread (RunRepo.createWithThread)", () => {
    it("writes both; claimed: the run running under the owner's lease, the thread busy with the metadata and config given", async () => {
      const s = await open();
      if (!s) return;
      const other = h.hasSibling ? await h.sibling(s) : s;
      expect(typeof s.runs.createWithThread).toBe("function");
      const id = ids(await assistantOf(s));
      const metadata = { graph_id: "agent", owner: "alice", nested: { a: [1, "two"] } };
      const config = { configurable: { model: "m" } };
      const internal = { captureResult: true };
      const run = await s.runs.createWithThread!(
        { thread_id: id.thread_id, metadata, config },
        { ...id, metadata: { n: 1 } },
        {
          internal,
          rejectIfThreadActive: true,
          claim: { owner: "w1", leaseMs: LEASE_MS },
        },
      );
      expect(run).toMatchObject({ ...id, status: "running", metadata: { n: 1 } });
      expect(Object.keys(run).sort()).toEqual(RUN_KEYS);
      expect(await other.runs.get(run.run_id)).toEqual(run);
      expect(await other.runs.getInternal(run.run_id)).toMatchObject(internal);
      expect(await other.runs.getLease(run.run_id)).toMatchObject({ owner: "w1" });
      expect(await other.runs.listLeases(10)).toMatchObject([{ run, owner: "w1", attempt: 1 }]);
      const thread = (await other.threads.get(id.thread_id))!;
      expect(thread).toEqual({
        thread_id: id.thread_id,
        created_at: thread.created_at,
        updated_at: thread.updated_at,
        metadata,
        config,
        status: "busy",
        values: null,
        interrupts: {},
        error: null,
      });
      // A thread made by `ThreadRepo.create` has the same shape (and the same keys).
      const plain = await s.threads.create({ thread_id: uid(), metadata, config });
      expect(Object.keys(thread).sort()).toEqual(Object.keys(plain).sort());
      // Not in the queue; its owner's settle frees the thread like any claimed run's.
      expect(await other.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toBeNull();
      if (s.runs.settle) {
        await s.runs.settle(run.run_id, "success", { from: ["running"], owner: "w1", thread: { status: "idle" }, releaseLease: true });
      } else {
        await s.runs.transition(run.run_id, "success", { from: ["running"], owner: "w1" });
        await s.runs.releaseLease(run.run_id, "w1");
        await s.threads.update(id.thread_id, { status: "idle" });
      }
      expect((await other.threads.get(id.thread_id))!.status).toBe("idle");
      expect((await other.runs.get(run.run_id))!.status).toBe("success");
    });

    it("without a claim (or deferred, or not pending): the thread as given (idle by default), the run as create writes it", async () => {
      const s = await open();
      if (!s) return;
      const assistant = await assistantOf(s);
      const plain = ids(assistant);
      const pending = await s.runs.createWithThread!({ thread_id: plain.thread_id }, plain, { rejectIfThreadActive: true });
      expect(pending).toMatchObject({ ...plain, status: "pending" });
      expect(await s.threads.get(plain.thread_id)).toMatchObject({ status: "idle", metadata: {}, config: {} });
      expect(await s.runs.getLease(plain.run_id)).toBeNull();

      const deferredAt = new Date(Date.now() + 3_600_000).toISOString();
      const deferredIds = ids(assistant);
      const deferred = await s.runs.createWithThread!(
        { thread_id: deferredIds.thread_id },
        { ...deferredIds, created_at: deferredAt },
        { claim: { owner: "w1", leaseMs: LEASE_MS } },
      );
      expect(deferred).toMatchObject({ status: "pending", created_at: deferredAt });
      expect((await s.threads.get(deferredIds.thread_id))!.status).toBe("idle");

      const cancelledIds = ids(assistant);
      const cancelled = await s.runs.createWithThread!(
        { thread_id: cancelledIds.thread_id },
        { ...cancelledIds, status: "interrupted", cancel_reason: "request" },
        { claim: { owner: "w1", leaseMs: LEASE_MS } },
      );
      expect(cancelled).toMatchObject({ status: "interrupted", cancel_reason: "request" });
      expect((await s.threads.get(cancelledIds.thread_id))!.status).toBe("idle");
      expect(await s.runs.listLeases(10)).toEqual([]);

      // The queue takes the pending one, as it takes any run `create` inserted.
      expect(await s.runs.claimNext({ owner: "w2", leaseMs: 60_000 })).toMatchObject({ run: { run_id: pending.run_id }, attempt: 1 });
      expect((await s.threads.get(plain.thread_id))!.status).toBe("busy");
    });

    it("the thread's TTL is the one given (a thread past it, with no active run, is listed as expired)", async () => {
      const s = await open();
      if (!s) return;
      const id = ids(await assistantOf(s));
      await s.runs.createWithThread!(
        { thread_id: id.thread_id, metadata: { topic: "ttl" }, ttl: { strategy: "keep_latest", minutes: 1 } },
        { ...id, status: "success" },
      );
      expect(await s.threads.get(id.thread_id)).toMatchObject({ metadata: { topic: "ttl" }, status: "idle" });
      if (!s.threads.listExpired) return; // TTL sweeps are their own part of the contract (`ttl`)
      const inMinutes = (m: number) => addMs(new Date().toISOString(), m * 60_000);
      const mine = (list: { thread_id: string }[]) => list.filter((t) => t.thread_id === id.thread_id);
      expect(mine(await s.threads.listExpired(new Date().toISOString(), 100))).toEqual([]);
      expect(mine(await s.threads.listExpired(inMinutes(2), 100))).toEqual([{ thread_id: id.thread_id, strategy: "keep_latest" }]);
    });

    it("a thread id that is taken: ThreadExistsError, nothing written, the existing thread and its runs as they were", async () => {
      const s = await open();
      if (!s) return;
      const assistant = await assistantOf(s);
      const existing = await newThread(s, { mine: true });
      const before = await s.threads.get(existing.thread_id);
      const runId = uid();
      const attempt = s.runs.createWithThread!(
        { thread_id: existing.thread_id, metadata: { theirs: true } },
        { run_id: runId, thread_id: existing.thread_id, assistant_id: assistant },
        { claim: { owner: "w1", leaseMs: LEASE_MS } },
      );
      await expect(attempt).rejects.toBeInstanceOf(ThreadExistsError);
      await expect(attempt).rejects.toBeInstanceOf(ConflictError);
      expect(await s.threads.get(existing.thread_id)).toEqual(before);
      expect(await s.runs.get(runId)).toBeNull();
      expect(await s.runs.search({ thread_id: existing.thread_id })).toEqual([]);
      expect(await s.runs.listLeases(10)).toEqual([]);
    });

    it("a run id that is taken: ConflictError (not ThreadExistsError), and the new thread is not written", async () => {
      const s = await open();
      if (!s) return;
      const assistant = await assistantOf(s);
      const first = ids(assistant);
      await s.runs.createWithThread!({ thread_id: first.thread_id }, first, { claim: { owner: "w1", leaseMs: LEASE_MS } });
      const threadId = uid();
      const attempt = s.runs.createWithThread!(
        { thread_id: threadId, metadata: { second: true } },
        { ...first, thread_id: threadId },
        { rejectIfThreadActive: true, claim: { owner: "w2", leaseMs: LEASE_MS } },
      );
      await expect(attempt).rejects.toBeInstanceOf(ConflictError);
      await expect(attempt).rejects.not.toBeInstanceOf(ThreadExistsError);
      expect(await s.threads.get(threadId)).toBeNull();
      expect(await s.runs.search({ thread_id: threadId })).toEqual([]);
      // The first run is untouched.
      expect(await s.runs.get(first.run_id)).toMatchObject({ thread_id: first.thread_id, status: "running" });
      expect((await s.runs.listLeases(10)).map((l) => l.owner)).toEqual(["w1"]);
    });

    it("a value that cannot be serialized: WireSerializationError, neither thread nor run written", async () => {
      const s = await open();
      if (!s) return;
      const assistant = await assistantOf(s);
      const badRun = ids(assistant);
      await expect(
        s.runs.createWithThread!(
          { thread_id: badRun.thread_id },
          { ...badRun, kwargs: { n: 1n } as never },
          { claim: { owner: "w1", leaseMs: LEASE_MS } },
        ),
      ).rejects.toBeInstanceOf(WireSerializationError);
      await expectNothingOf(s, badRun.thread_id, badRun.run_id);
      const badThread = ids(assistant);
      await expect(
        s.runs.createWithThread!({ thread_id: badThread.thread_id, metadata: { n: 1n } as never }, badThread, {
          claim: { owner: "w1", leaseMs: LEASE_MS },
        }),
      ).rejects.toBeInstanceOf(WireSerializationError);
      await expectNothingOf(s, badThread.thread_id, badThread.run_id);
      // The run must be of the thread created with it.
      const mismatched = ids(assistant);
      await expect(s.runs.createWithThread!({ thread_id: mismatched.thread_id }, { ...mismatched, thread_id: uid() })).rejects.toThrow();
      await expectNothingOf(s, mismatched.thread_id, mismatched.run_id);
    });

    it("concurrent creates of one thread id: exactly one writes thread and run, the others get ThreadExistsError", async () => {
      const s = await open();
      if (!s) return;
      const drivers = h.hasSibling ? [s, await h.sibling(s), await h.sibling(s)] : [s];
      const assistant = await assistantOf(s);
      const threadId = uid();
      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          drivers[i % drivers.length]!.runs.createWithThread!(
            { thread_id: threadId, metadata: { i } },
            { run_id: uid(), thread_id: threadId, assistant_id: assistant },
            { rejectIfThreadActive: true, claim: { owner: `w${i}`, leaseMs: LEASE_MS } },
          ),
        ),
      );
      const created = attempts.filter((a) => a.status === "fulfilled");
      expect(created).toHaveLength(1);
      for (const a of attempts) if (a.status === "rejected") expect(a.reason).toBeInstanceOf(ThreadExistsError);
      const runs = await s.runs.search({ thread_id: threadId });
      expect(runs).toHaveLength(1);
      expect(runs[0]!.status).toBe("running");
      expect((await s.threads.get(threadId))!.status).toBe("busy");
    });

    it("creates at once, one of them on a taken thread id: only that one fails, the others are written", async () => {
      const s = await open();
      if (!s) return;
      const assistant = await assistantOf(s);
      const taken = await newThread(s);
      const fresh = [ids(assistant), ids(assistant), ids(assistant)];
      const create = (id: { thread_id: string; run_id: string; assistant_id: string }) =>
        s.runs.createWithThread!({ thread_id: id.thread_id }, id, { claim: { owner: "w1", leaseMs: LEASE_MS } });
      const attempts = await Promise.allSettled([
        create(fresh[0]!),
        create({ ...ids(assistant), thread_id: taken.thread_id }),
        create(fresh[1]!),
        create(fresh[2]!),
      ]);
      expect(attempts.map((a) => a.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
      expect((attempts[1] as PromiseRejectedResult).reason).toBeInstanceOf(ThreadExistsError);
      for (const id of fresh) {
        expect(await s.runs.get(id.run_id)).toMatchObject({ ...id, status: "running" });
        expect((await s.threads.get(id.thread_id))!.status).toBe("busy");
      }
      expect(await s.runs.search({ thread_id: taken.thread_id })).toEqual([]);
    });
  });
}

/** For a driver declared without it: no `createWithThread` (callers make two writes). */
export function describeCreateWithThreadAbsent(h: Harness): void {
  describe("a run created with its new thread (left out by this driver)", () => {
    it("RunRepo has no createWithThread", async () => {
      const s = await h.open();
      expect(s.runs.createWithThread).toBeUndefined();
    });
  });
}
