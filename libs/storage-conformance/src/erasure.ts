import { describe, expect, it } from "vitest";
import { addMs, type Run, type Storage } from "@agent-server/core";
import { newThread, uid, type Harness } from "./harness.js";

/**
 * The rules every driver must apply the same way (core's `rules/`): what erasing a run takes with it,
 * what deleting an assistant leaves alone, and what a thread copy gives its runs. Results and push configs
 * are optional parts of the contract: their share of these rules is checked in their own blocks
 * (`describeResultLifecycle`, `describePushConfigs`), registered for drivers that declare them.
 */
export function describeErasure(h: Harness): void {
  describe("run erasure, assistant delete and thread copy rules", () => {
    /** A task root and its continuation on one thread, each with events and deliveries. */
    async function taskWithEverything(s: Storage, assistantId: string) {
      const thread = (await newThread(s)).thread_id;
      const root = await s.runs.create(
        { run_id: uid(), thread_id: thread, assistant_id: assistantId },
        { internal: { captureResult: true } },
      );
      const cont = await s.runs.create(
        { run_id: uid(), thread_id: thread, assistant_id: assistantId },
        { internal: { captureResult: true, taskId: root.run_id } },
      );
      const deliveries: Record<string, { delivered: string; failed: string; pending: string }> = {};
      for (const run of [root, cont]) {
        await s.events.append(run.run_id, "values", { run: run.run_id }, { ttlMs: 60_000 });
        const enqueue = async () => {
          const headers = { authorization: "Bearer secret" };
          const delivery = {
            delivery_id: uid(),
            kind: "a2a_push" as const,
            url: "https://hooks.example/",
            headers,
            payload: { run: run.run_id },
            run_id: run.run_id,
          };
          return (await s.deliveries.enqueue(delivery)).delivery_id;
        };
        const [delivered, failed, pending] = [await enqueue(), await enqueue(), await enqueue()];
        await s.deliveries.markDelivered(delivered);
        await s.deliveries.markFailed(failed, "HTTP 500");
        deliveries[run.run_id] = { delivered, failed, pending };
      }
      return { thread, root, cont, deliveries };
    }

    type Task = Awaited<ReturnType<typeof taskWithEverything>>;

    async function expectErased(s: Storage, task: Task, assistantId: string): Promise<void> {
      for (const run of [task.root, task.cont]) {
        expect(await s.runs.get(run.run_id)).toBeNull();
        expect(await s.runs.getInternal(run.run_id)).toBeNull();
        expect(await s.events.list(run.run_id)).toEqual([]);
        const { delivered, failed, pending } = task.deliveries[run.run_id];
        expect(await s.deliveries.get(delivered)).toBeNull();
        expect(await s.deliveries.get(failed)).toBeNull();
        // A pending delivery is the outbox's promise to report the run's end (a stateless run's webhook
        // is enqueued just before its thread is deleted): it is still sent, then clears its payload.
        expect(await s.deliveries.get(pending)).toMatchObject({ status: "pending", run_id: run.run_id });
      }
      expect((await s.runs.searchTaskRoots({ assistant_id: assistantId, limit: 100 })).map((r) => r.run_id)).not.toContain(
        task.root.run_id,
      );
      expect(await s.runs.latestContinuation(task.root.run_id)).toBeNull();
      expect(await s.runs.listContinuations(task.root.run_id)).toEqual([]);
      // Re-created ids start empty: nothing of the erased runs resurfaces.
      const thread = (await s.threads.get(task.thread)) ?? (await s.threads.create({ thread_id: task.thread }));
      const again = await s.runs.create({ run_id: task.root.run_id, thread_id: thread.thread_id, assistant_id: assistantId });
      expect(await s.events.list(again.run_id)).toEqual([]);
    }

    async function expectWhole(s: Storage, task: Task): Promise<void> {
      for (const run of [task.root, task.cont]) {
        expect(await s.runs.get(run.run_id)).not.toBeNull();
        expect(await s.events.list(run.run_id)).toHaveLength(1);
        for (const id of Object.values(task.deliveries[run.run_id])) expect(await s.deliveries.get(id)).not.toBeNull();
      }
      expect(await s.runs.latestContinuation(task.root.run_id)).toEqual(task.cont);
    }

    it("run delete, thread delete and prune delete leave no events, finished deliveries or lineage", async () => {
      const s = await h.open();
      const assistant = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const viaRun = await taskWithEverything(s, assistant);
      const viaThread = await taskWithEverything(s, assistant);
      const viaPrune = await taskWithEverything(s, assistant);
      const survivor = await taskWithEverything(s, assistant);

      expect(await s.runs.delete(viaRun.cont.run_id)).toBe(true);
      expect(await s.runs.delete(viaRun.root.run_id)).toBe(true);
      expect(await s.threads.delete(viaThread.thread)).toBe(true);
      expect(await s.threads.prune([viaPrune.thread], "delete")).toBe(1);

      await expectErased(s, viaRun, assistant);
      await expectErased(s, viaThread, assistant);
      await expectErased(s, viaPrune, assistant);
      await expectWhole(s, survivor);
    });

    it("assistant delete erases no run: its runs keep their events, deliveries and lineage, under the dangling assistant_id", async () => {
      const s = await h.open();
      const doomed = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const task = await taskWithEverything(s, doomed);
      expect(await s.assistants.delete(doomed)).toBe(true);
      await expectWhole(s, task);
      expect(await s.runs.get(task.root.run_id)).toEqual(task.root);
      expect((await s.runs.search({ thread_id: task.thread })).map((r) => r.assistant_id)).toEqual([doomed, doomed]);
      expect((await s.runs.searchTaskRoots({ assistant_id: doomed })).map((r) => r.run_id)).toEqual([task.root.run_id]);
      // The runs still go with their thread.
      expect(await s.threads.delete(task.thread)).toBe(true);
      await expectErased(s, task, doomed);
    });

    it("a rollback (delete with checkpoints) erases the same as a run delete", async () => {
      const s = await h.open();
      const assistant = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const task = await taskWithEverything(s, assistant);
      expect(await s.runs.delete(task.cont.run_id, { checkpoints: true })).toBe(true);
      expect(await s.runs.delete(task.root.run_id, { checkpoints: true })).toBe(true);
      await expectErased(s, task, assistant);
    });

    it("a copied run is claimed by no one: no lease to renew or to expire, whoever held the source's", async () => {
      const s = await h.open();
      const thread = (await newThread(s)).thread_id;
      const assistant = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      const lapsed = await s.runs.create({ run_id: uid(), thread_id: thread, assistant_id: assistant, created_at: hourAgo });
      // Claimed an hour ago with a 1 s lease: lapsed long since, the worker is presumed dead.
      expect((await s.runs.claimNext({ owner: "w1", leaseMs: 1_000, now: addMs(hourAgo, 10) }))!.run.run_id).toBe(lapsed.run_id);
      const copyId = uid();
      expect(await s.threads.copy(thread, copyId)).not.toBeNull();
      const [copied] = await s.runs.search({ thread_id: copyId });
      expect(copied).toMatchObject({ status: "running", created_at: lapsed.created_at });
      expect(copied.run_id).not.toBe(lapsed.run_id);

      const farFuture = addMs(new Date().toISOString(), 3_600_000 * 24);
      expect((await s.runs.listExpiredLeases(farFuture, 100)).map((r: Run) => r.run_id)).toEqual([lapsed.run_id]);
      expect(await s.runs.renewLeases([copied.run_id], "w1", 60_000)).toBe(0);
      expect(await s.runs.renewLeases([lapsed.run_id], "w1", 60_000)).toBe(1);
      expect(await s.runs.listExpiredLeases(farFuture, 100)).toHaveLength(1);
    });

    it("a copy takes runs and lineage, not events or deliveries; erasing the copy leaves the source whole", async () => {
      const s = await h.open();
      const assistant = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const task = await taskWithEverything(s, assistant);
      const copyId = uid();
      expect(await s.threads.copy(task.thread, copyId)).not.toBeNull();
      const [copiedRoot] = await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: copyId });
      const copiedCont = (await s.runs.latestContinuation(copiedRoot.run_id))!;
      expect(copiedCont).toMatchObject({ thread_id: copyId });
      expect(await s.runs.getInternal(copiedCont.run_id)).toEqual({ captureResult: true, taskId: copiedRoot.run_id });
      for (const [copy, source] of [
        [copiedRoot, task.root],
        [copiedCont, task.cont],
      ] as const) {
        expect(copy.run_id).not.toBe(source.run_id);
        expect(await s.events.list(copy.run_id)).toEqual([]);
      }
      expect(await s.threads.delete(copyId)).toBe(true);
      expect(await s.runs.latestContinuation(task.root.run_id)).toEqual(task.cont);
      await expectWhole(s, task);
    });
  });
}
