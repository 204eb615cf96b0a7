import { describe, expect, it } from "vitest";
import { toWireJson, type Run, type RunInternal, type Storage } from "@agent-server/core";
import { RUN_KEYS, awkwardValue, newThread, uid, type Harness } from "./harness.js";

/** A2A task lineage: `searchTaskRoots`, `latestContinuation`, `listContinuations`, and the internal `message`. */
export function describeTasks(h: Harness): void {
  describe("A2A task roots and continuations", () => {
    const ids = (runs: Run[]) => runs.map((r) => r.run_id);

    async function setup(s: Storage) {
      const assistant = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const create = (thread_id: string, internal?: RunInternal, created_at?: string, assistant_id = assistant) =>
        s.runs.create({ run_id: uid(), thread_id, assistant_id, created_at }, internal ? { internal } : undefined);
      return { assistant, create };
    }

    it("searchTaskRoots: only captured first runs of the assistant, newest first (also within one ms), thread filter, limit (default 10), offset", async () => {
      const s = await h.open();
      const { assistant, create } = await setup(s);
      const other = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const [t1, t2] = [(await newThread(s)).thread_id, (await newThread(s)).thread_id];
      const at = new Date(Date.now() - 60_000).toISOString();
      const later = new Date(Date.parse(at) + 1_000).toISOString();
      const earlier = new Date(Date.parse(at) - 1_000).toISOString();
      // Inserted first but created latest: sorts first.
      const newest = await create(t1, { captureResult: true }, later);
      const roots: Run[] = [];
      for (let i = 0; i < 12; i++) {
        roots.push(await create(i % 2 === 0 ? t1 : t2, { captureResult: true }, at));
        // Noise between the roots: none of these is a task root of `assistant`.
        if (i === 3) await create(t1, undefined, at);
        if (i === 4) await create(t2, {}, at);
        if (i === 5) await create(t1, { captureResult: false }, at);
        if (i === 6) await create(t1, { captureResult: true, taskId: roots[0].run_id }, at);
        if (i === 7) await create(t2, { taskId: roots[1].run_id }, at);
        if (i === 8) await create(t1, { captureResult: true }, at, other);
      }
      // Inserted last but created earliest: sorts last.
      const oldest = await create(t2, { captureResult: true }, earlier);
      const expected = [newest, ...[...roots].reverse(), oldest].map((r) => r.run_id);

      const page = await s.runs.searchTaskRoots({ assistant_id: assistant });
      expect(ids(page)).toEqual(expected.slice(0, 10));
      for (const r of page) expect(Object.keys(r).sort()).toEqual(RUN_KEYS);
      expect(page[0]).toEqual(newest);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, limit: 100 }))).toEqual(expected);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, limit: 4, offset: 3 }))).toEqual(expected.slice(3, 7));
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, limit: 5, offset: 12 }))).toEqual(expected.slice(12));
      expect(await s.runs.searchTaskRoots({ assistant_id: assistant, limit: 0 })).toEqual([]);

      const ofT1 = [newest, ...roots.filter((_, i) => i % 2 === 0).reverse()].map((r) => r.run_id);
      const ofT2 = [...roots.filter((_, i) => i % 2 === 1).reverse(), oldest].map((r) => r.run_id);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: t1, limit: 100 }))).toEqual(ofT1);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: t2, limit: 100 }))).toEqual(ofT2);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: t2, limit: 2, offset: 1 }))).toEqual(ofT2.slice(1, 3));
      expect(await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: uid() })).toEqual([]);

      const ofOther = await s.runs.searchTaskRoots({ assistant_id: other });
      expect(ofOther).toHaveLength(1);
      expect(await s.runs.getInternal(ofOther[0].run_id)).toEqual({ captureResult: true });
      expect(await s.runs.searchTaskRoots({ assistant_id: other, thread_id: t2 })).toEqual([]);
      expect(await s.runs.searchTaskRoots({ assistant_id: uid() })).toEqual([]);
    });

    it("searchTaskRoots ignores status: roots stay roots through transitions, with their current status", async () => {
      const s = await h.open();
      const { assistant, create } = await setup(s);
      const thread = (await newThread(s)).thread_id;
      const root = await create(thread, { captureResult: true });
      await s.runs.transition(root.run_id, "running");
      await s.runs.transition(root.run_id, "success");
      const [found] = await s.runs.searchTaskRoots({ assistant_id: assistant });
      expect(found).toEqual(await s.runs.get(root.run_id));
      expect(found.status).toBe("success");
    });

    it("getTask (when the driver has it): the run, its internal and its latest continuation, as the three reads give them", async () => {
      const s = await h.open();
      if (!s.runs.getTask) return;
      const { create } = await setup(s);
      const thread = (await newThread(s)).thread_id;
      const message = { messageId: "m1", parts: [{ text: "a\u0000b" }] };
      const root = await create(thread, { captureResult: true, message });
      expect(await s.runs.getTask(uid())).toBeNull();
      expect(await s.runs.getTask(root.run_id)).toEqual({ run: root, internal: { captureResult: true, message }, latest: null });
      const at = new Date(Date.now() + 1_000).toISOString();
      await create(thread, { captureResult: true, taskId: root.run_id }, at);
      const newest = await create(thread, { taskId: root.run_id }, at);
      await s.runs.transition(root.run_id, "success");
      const task = await s.runs.getTask(root.run_id);
      expect(task).toEqual({
        run: await s.runs.get(root.run_id),
        internal: await s.runs.getInternal(root.run_id),
        latest: await s.runs.latestContinuation(root.run_id),
      });
      expect(task?.latest?.run_id).toBe(newest.run_id);
      expect(Object.keys(task!.run).sort()).toEqual(RUN_KEYS);
      expect(Object.keys(task!.latest!).sort()).toEqual(RUN_KEYS);
      // A run without a marker reads with an empty one; a continuation is read as any run (no latest of its own).
      const plain = await create(thread);
      expect(await s.runs.getTask(plain.run_id)).toEqual({ run: plain, internal: {}, latest: null });
      expect((await s.runs.getTask(newest.run_id))?.internal).toEqual({ taskId: root.run_id });
    });

    it("latestContinuation: the newest run whose internal taskId matches (created_at, then insertion order); null without one", async () => {
      const s = await h.open();
      const { assistant, create } = await setup(s);
      const thread = (await newThread(s)).thread_id;
      const root = await create(thread, { captureResult: true });
      const otherRoot = await create(thread, { captureResult: true });
      expect(await s.runs.latestContinuation(root.run_id)).toBeNull();
      expect(await s.runs.latestContinuation(uid())).toBeNull();

      const at = new Date(Date.now() + 1_000).toISOString();
      const first = await create(thread, { captureResult: true, taskId: root.run_id }, at);
      expect(await s.runs.latestContinuation(root.run_id)).toEqual(first);
      // Same millisecond, inserted later: newer. Without captureResult it still continues the task.
      const second = await create(thread, { taskId: root.run_id }, at);
      // Inserted last but created earlier: older.
      await create(thread, { captureResult: true, taskId: root.run_id }, new Date(Date.parse(at) - 5_000).toISOString());
      const foreign = await create(
        thread,
        { captureResult: true, taskId: otherRoot.run_id },
        new Date(Date.parse(at) + 5_000).toISOString(),
      );
      const latest = await s.runs.latestContinuation(root.run_id);
      expect(latest).toEqual(second);
      expect(Object.keys(latest!).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.latestContinuation(otherRoot.run_id)).toEqual(foreign);
      // A continuation of another thread (or assistant) counts too: lineage is by task id only.
      const elsewhere = (await newThread(s)).thread_id;
      const other = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const moved = await create(elsewhere, { taskId: root.run_id }, new Date(Date.parse(at) + 1).toISOString(), other);
      expect(await s.runs.latestContinuation(root.run_id)).toEqual(moved);
      // Continuations are never roots.
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, limit: 100 }))).toEqual([otherRoot.run_id, root.run_id]);

      // Deleting the newest falls back to the next one.
      await s.runs.delete(moved.run_id);
      expect(await s.runs.latestContinuation(root.run_id)).toEqual(second);
      await s.runs.delete(second.run_id);
      expect(await s.runs.latestContinuation(root.run_id)).toEqual(first);
    });

    it("listContinuations: every run whose internal taskId matches, oldest first (created_at, then insertion order), limit (default 100)", async () => {
      const s = await h.open();
      const { create } = await setup(s);
      const thread = (await newThread(s)).thread_id;
      const root = await create(thread, { captureResult: true });
      const otherRoot = await create(thread, { captureResult: true });
      expect(await s.runs.listContinuations(root.run_id)).toEqual([]);
      expect(await s.runs.listContinuations(uid())).toEqual([]);

      const at = new Date(Date.now() + 1_000).toISOString();
      const first = await create(thread, { captureResult: true, taskId: root.run_id }, at);
      // Same millisecond, inserted later: after `first`. Without captureResult it still continues the task.
      const second = await create(thread, { taskId: root.run_id }, at);
      // Inserted later but created earlier: before both.
      const earliest = await create(thread, { captureResult: true, taskId: root.run_id }, new Date(Date.parse(at) - 5_000).toISOString());
      // Another task's continuation, an ordinary run and a root in between: never listed.
      const foreign = await create(thread, { captureResult: true, taskId: otherRoot.run_id }, at);
      await create(thread, undefined, at);
      await create(thread, { captureResult: true }, at);
      // A continuation of another thread and assistant counts too: lineage is by task id only.
      const elsewhere = (await newThread(s)).thread_id;
      const other = (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
      const moved = await create(elsewhere, { taskId: root.run_id }, new Date(Date.parse(at) + 1).toISOString(), other);

      const listed = await s.runs.listContinuations(root.run_id);
      expect(listed).toEqual([earliest, first, second, moved]);
      for (const r of listed) expect(Object.keys(r).sort()).toEqual(RUN_KEYS);
      expect(ids(listed)).not.toContain(root.run_id);
      expect(await s.runs.listContinuations(otherRoot.run_id)).toEqual([foreign]);
      expect(ids(await s.runs.listContinuations(root.run_id, { limit: 2 }))).toEqual([earliest.run_id, first.run_id]);
      expect(await s.runs.listContinuations(root.run_id, { limit: 0 })).toEqual([]);
      // Sibling of latestContinuation: its newest is this list's last.
      expect(await s.runs.latestContinuation(root.run_id)).toEqual(listed.at(-1));
      // Status changes do not move a continuation.
      await s.runs.transition(first.run_id, "success");
      expect(ids(await s.runs.listContinuations(root.run_id))).toEqual(ids(listed));

      // Deleting a run removes it from the list.
      await s.runs.delete(first.run_id);
      expect(ids(await s.runs.listContinuations(root.run_id))).toEqual([earliest.run_id, second.run_id, moved.run_id]);
      await s.runs.delete(moved.run_id);
      await s.runs.delete(earliest.run_id);
      expect(await s.runs.listContinuations(root.run_id)).toEqual([second]);
      // Deleting the root does not touch its continuations (lineage is a stored id, not a reference).
      await s.runs.delete(root.run_id);
      expect(await s.runs.listContinuations(root.run_id)).toEqual([second]);

      // The default limit is 100.
      const many = await create(thread, { captureResult: true });
      const manyAt = new Date(Date.now() - 60_000).toISOString();
      const all: string[] = [];
      for (let i = 0; i < 101; i++) all.push((await create(thread, { taskId: many.run_id }, manyAt)).run_id);
      expect(ids(await s.runs.listContinuations(many.run_id))).toEqual(all.slice(0, 100));
      expect(ids(await s.runs.listContinuations(many.run_id, { limit: 1000 }))).toEqual(all);
      expect(ids(await s.runs.listContinuations(many.run_id, { limit: 3 }))).toEqual(all.slice(0, 3));
    });

    it("thread copy: copied roots are roots of the copy, copied continuations point at the copied root", async () => {
      const s = await h.open();
      const { assistant, create } = await setup(s);
      const thread = (await newThread(s)).thread_id;
      const at = new Date(Date.now() - 10_000).toISOString();
      const root = await create(thread, { captureResult: true }, at);
      const cont = await create(thread, { captureResult: true, taskId: root.run_id }, new Date(Date.parse(at) + 1_000).toISOString());
      const foreignTask = uid();
      await create(thread, { taskId: foreignTask }, at);

      const copyId = uid();
      expect(await s.threads.copy(thread, copyId)).not.toBeNull();
      const copiedRoots = await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: copyId });
      expect(copiedRoots).toHaveLength(1);
      const copiedRoot = copiedRoots[0];
      expect(copiedRoot.run_id).not.toBe(root.run_id);
      expect(copiedRoot).toMatchObject({ thread_id: copyId, created_at: root.created_at });
      const copiedCont = await s.runs.latestContinuation(copiedRoot.run_id);
      expect(copiedCont).toMatchObject({ thread_id: copyId, created_at: cont.created_at });
      expect(copiedCont!.run_id).not.toBe(cont.run_id);
      // The copy's continuations list under the copy's root id; the source's list is unchanged.
      expect(await s.runs.listContinuations(copiedRoot.run_id)).toEqual([copiedCont]);
      expect(await s.runs.listContinuations(root.run_id)).toEqual([cont]);
      // The source lineage is untouched; both roots share created_at, the copy was inserted later.
      expect(await s.runs.latestContinuation(root.run_id)).toEqual(cont);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant }))).toEqual([copiedRoot.run_id, root.run_id]);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: thread }))).toEqual([root.run_id]);
      // A continuation of a task outside the thread keeps pointing there; it is the foreign task's latest (newer insertion).
      const foreignLatest = await s.runs.latestContinuation(foreignTask);
      expect(foreignLatest).toMatchObject({ thread_id: copyId });
      const foreignList = await s.runs.listContinuations(foreignTask);
      expect(foreignList.map((r) => r.thread_id)).toEqual([thread, copyId]);
      expect(foreignList[1]).toEqual(foreignLatest);

      // Independent afterwards.
      await s.threads.delete(copyId);
      expect(await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: copyId })).toEqual([]);
      expect(await s.runs.latestContinuation(copiedRoot.run_id)).toBeNull();
      expect(await s.runs.listContinuations(copiedRoot.run_id)).toEqual([]);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant }))).toEqual([root.run_id]);
      expect((await s.runs.latestContinuation(foreignTask))!.thread_id).toBe(thread);
      expect(await s.runs.listContinuations(foreignTask)).toEqual([foreignList[0]]);
      expect(await s.runs.listContinuations(root.run_id)).toEqual([cont]);
    });

    it("internal message: arbitrary wire JSON round-trips through create and getInternal, and thread copy keeps it", async () => {
      const s = await h.open();
      const { assistant, create } = await setup(s);
      const thread = (await newThread(s)).thread_id;
      const message = {
        kind: "message",
        messageId: uid(),
        role: "user",
        parts: [
          { kind: "text", text: "hi" },
          { kind: "data", data: awkwardValue() },
        ],
      };
      const reply = ["a\u0000b", 0.1, 1e21, null, { nested: [[]] }];
      const root = await create(thread, { captureResult: true, message });
      const cont = await create(thread, { captureResult: true, taskId: root.run_id, message: reply });
      const plain = await create(thread, { taskId: root.run_id, message: "just text" });
      expect(await s.runs.getInternal(root.run_id)).toEqual({ captureResult: true, message: toWireJson(message) });
      expect(await s.runs.getInternal(cont.run_id)).toEqual({ captureResult: true, taskId: root.run_id, message: toWireJson(reply) });
      expect(await s.runs.getInternal(plain.run_id)).toEqual({ taskId: root.run_id, message: "just text" });
      // Never on a run read; lineage unaffected.
      for (const r of [root, cont, plain, (await s.runs.get(root.run_id))!]) expect(Object.keys(r).sort()).toEqual(RUN_KEYS);
      expect(ids(await s.runs.listContinuations(root.run_id))).toEqual([cont.run_id, plain.run_id]);

      const copyId = uid();
      expect(await s.threads.copy(thread, copyId)).not.toBeNull();
      const [copiedRoot] = await s.runs.searchTaskRoots({ assistant_id: assistant, thread_id: copyId });
      const [copiedCont, copiedPlain] = await s.runs.listContinuations(copiedRoot.run_id);
      expect(await s.runs.getInternal(copiedRoot.run_id)).toEqual({ captureResult: true, message: toWireJson(message) });
      expect(await s.runs.getInternal(copiedCont.run_id)).toEqual({
        captureResult: true,
        taskId: copiedRoot.run_id,
        message: toWireJson(reply),
      });
      expect(await s.runs.getInternal(copiedPlain.run_id)).toEqual({ taskId: copiedRoot.run_id, message: "just text" });
      // The source's internals are untouched.
      expect(await s.runs.getInternal(cont.run_id)).toEqual({ captureResult: true, taskId: root.run_id, message: toWireJson(reply) });
    });

    it("deletes and truncate leave nothing behind; re-created ids are indexed by their new internals only", async () => {
      const s = await h.open();
      const { assistant, create } = await setup(s);
      const [t1, t2] = [(await newThread(s)).thread_id, (await newThread(s)).thread_id];
      const viaRun = await create(t1, { captureResult: true });
      const viaThread = await create(t2, { captureResult: true });
      const survivor = await create(t1, { captureResult: true });
      const contViaThread = await create(t2, { taskId: survivor.run_id });
      const contViaRun = await create(t1, { taskId: viaThread.run_id });

      await s.runs.delete(viaRun.run_id);
      await s.runs.delete(contViaRun.run_id);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant }))).toEqual([survivor.run_id, viaThread.run_id]);
      expect(await s.runs.latestContinuation(viaThread.run_id)).toBeNull();
      expect(await s.runs.latestContinuation(survivor.run_id)).toEqual(contViaThread);
      expect(await s.runs.listContinuations(viaThread.run_id)).toEqual([]);
      expect(await s.runs.listContinuations(survivor.run_id)).toEqual([contViaThread]);
      expect(await s.threads.prune([t2], "delete")).toBe(1);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant }))).toEqual([survivor.run_id]);
      expect(await s.runs.latestContinuation(survivor.run_id)).toBeNull();
      expect(await s.runs.listContinuations(survivor.run_id)).toEqual([]);

      // Same ids again, with other internals: the old lineage must not resurface.
      await s.runs.create({ run_id: viaRun.run_id, thread_id: t1, assistant_id: assistant });
      await s.runs.create({ run_id: contViaRun.run_id, thread_id: t1, assistant_id: assistant }, { internal: { captureResult: true } });
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant }))).toEqual([contViaRun.run_id, survivor.run_id]);
      expect(await s.runs.latestContinuation(viaThread.run_id)).toBeNull();
      expect(await s.runs.listContinuations(viaThread.run_id)).toEqual([]);

      // Assistant delete erases no run: the roots stay, under the dangling assistant_id.
      await s.assistants.delete(assistant);
      expect(ids(await s.runs.searchTaskRoots({ assistant_id: assistant }))).toEqual([contViaRun.run_id, survivor.run_id]);

      const next = await setup(s);
      const t3 = (await newThread(s)).thread_id;
      const root = await next.create(t3, { captureResult: true });
      await next.create(t3, { taskId: root.run_id });
      await s.truncate({ runs: true });
      expect(await s.runs.searchTaskRoots({ assistant_id: next.assistant })).toEqual([]);
      expect(await s.runs.latestContinuation(root.run_id)).toBeNull();
      expect(await s.runs.listContinuations(root.run_id)).toEqual([]);
      const again = await next.create(t3, { captureResult: true });
      await next.create(t3, { taskId: root.run_id });
      await s.truncate({ threads: true });
      expect(await s.runs.searchTaskRoots({ assistant_id: next.assistant })).toEqual([]);
      expect(await s.runs.latestContinuation(root.run_id)).toBeNull();
      expect(await s.runs.get(again.run_id)).toBeNull();
    });

    if (h.hasSibling)
      it("a sibling driver sees roots and continuations written by another", async () => {
        const s = await h.open();
        const other = await h.sibling(s);
        const { assistant } = await setup(s);
        const thread = (await newThread(s)).thread_id;
        const root = await other.runs.create(
          { run_id: uid(), thread_id: thread, assistant_id: assistant },
          { internal: { captureResult: true } },
        );
        const cont = await other.runs.create(
          { run_id: uid(), thread_id: thread, assistant_id: assistant },
          { internal: { taskId: root.run_id } },
        );
        expect(await s.runs.searchTaskRoots({ assistant_id: assistant })).toEqual([root]);
        expect(await s.runs.latestContinuation(root.run_id)).toEqual(cont);
        expect(await s.runs.listContinuations(root.run_id)).toEqual([cont]);
      });
  });
}
