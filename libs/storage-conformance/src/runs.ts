import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, type Run, type RunStatus } from "@agent-server/core";
import { ISO_MS, RUN_KEYS, newRun, newThread, sleep, uid, type Harness } from "./harness.js";

export function describeRuns(h: Harness): void {
  describe("runs", () => {
    it("create fills defaults; get returns exactly the Run fields; get with another thread id is null", async () => {
      const s = await h.open();
      const run = await newRun(s);
      expect(run).toEqual({
        run_id: run.run_id,
        thread_id: run.thread_id,
        assistant_id: run.assistant_id,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        status: "pending",
        metadata: {},
        kwargs: {},
        multitask_strategy: "reject",
        cancel_reason: null,
      });
      expect(Object.keys(run).sort()).toEqual(RUN_KEYS);
      const read = await s.runs.get(run.run_id);
      expect(read).toEqual(run);
      expect(Object.keys(read!).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.get(run.run_id, run.thread_id)).toEqual(run);
      expect(await s.runs.get(run.run_id, uid())).toBeNull();
      expect(await s.runs.get(uid())).toBeNull();
    });

    it("create stores the given fields, a deferred created_at, and internals readable only through getInternal", async () => {
      const s = await h.open();
      const later = new Date(Date.now() + 3_600_000).toISOString();
      const run = await newRun(s, {
        status: "running",
        metadata: { source: "test", n: [1] },
        kwargs: { input: { messages: [{ role: "user", content: "hi" }] }, config: { configurable: { x: 1 } }, stream_mode: ["values"] },
        multitask_strategy: "enqueue",
        created_at: later,
      });
      expect(run).toMatchObject({
        status: "running",
        metadata: { source: "test", n: [1] },
        kwargs: { input: { messages: [{ role: "user", content: "hi" }] }, config: { configurable: { x: 1 } }, stream_mode: ["values"] },
        multitask_strategy: "enqueue",
        created_at: later,
      });
      expect(await s.runs.getInternal(run.run_id)).toEqual({});
      const marked = await newRun(s, { thread_id: run.thread_id, assistant_id: run.assistant_id, status: "success" });
      const cont = await s.runs.create(
        { run_id: uid(), thread_id: run.thread_id, assistant_id: run.assistant_id },
        { internal: { captureResult: true, taskId: marked.run_id } },
      );
      expect(Object.keys(cont).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.getInternal(cont.run_id)).toEqual({ captureResult: true, taskId: marked.run_id });
      expect(Object.keys((await s.runs.get(cont.run_id))!).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.getInternal(uid())).toBeNull();
    });

    it("create on an unknown thread throws NotFoundError and inserts nothing", async () => {
      const s = await h.open();
      const runId = uid();
      await expect(s.runs.create({ run_id: runId, thread_id: uid(), assistant_id: uid() })).rejects.toBeInstanceOf(NotFoundError);
      expect(await s.runs.get(runId)).toBeNull();
    });

    it("rejectIfThreadActive throws ConflictError while the thread has a pending or running run", async () => {
      const s = await h.open();
      const first = await newRun(s);
      const base = { thread_id: first.thread_id, assistant_id: first.assistant_id };
      const blockedId = uid();
      await expect(s.runs.create({ run_id: blockedId, ...base }, { rejectIfThreadActive: true })).rejects.toBeInstanceOf(ConflictError);
      expect(await s.runs.get(blockedId)).toBeNull();
      await s.runs.transition(first.run_id, "running");
      await expect(s.runs.create({ run_id: uid(), ...base }, { rejectIfThreadActive: true })).rejects.toBeInstanceOf(ConflictError);
      // Without the option, enqueueing behind an active run is allowed.
      const queued = await s.runs.create({ run_id: uid(), ...base });
      await s.runs.transition(first.run_id, "success");
      await s.runs.transition(queued.run_id, "interrupted");
      const admitted = await s.runs.create({ run_id: uid(), ...base }, { rejectIfThreadActive: true });
      expect(admitted.status).toBe("pending");
    });

    it("rejectIfThreadActive is atomic: of concurrent creates on an idle thread exactly one is admitted", async () => {
      const s = await h.open();
      const others = h.hasSibling ? [await h.sibling(s), await h.sibling(s)] : [s, s];
      const thread = await newThread(s);
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const drivers = [s, ...others, s, ...others];
      const outcomes = await Promise.allSettled(
        drivers.map((d) =>
          d.runs.create(
            { run_id: uid(), thread_id: thread.thread_id, assistant_id: assistant.assistant_id },
            { rejectIfThreadActive: true },
          ),
        ),
      );
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toBeInstanceOf(ConflictError);
      expect(await s.runs.search({ thread_id: thread.thread_id })).toHaveLength(1);
    });

    it("search: newest first (also within one millisecond), thread/status/metadata filters, limit (default 10) and offset", async () => {
      const s = await h.open();
      const thread = await newThread(s);
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const at = new Date().toISOString();
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const run = await s.runs.create({
          run_id: uid(),
          thread_id: thread.thread_id,
          assistant_id: assistant.assistant_id,
          created_at: at,
          metadata: { i, even: i % 2 === 0 },
        });
        ids.push(run.run_id);
      }
      const newestFirst = [...ids].reverse();
      expect((await s.runs.search({ thread_id: thread.thread_id })).map((r) => r.run_id)).toEqual(newestFirst.slice(0, 10));
      expect((await s.runs.search({ thread_id: thread.thread_id, limit: 3, offset: 2 })).map((r) => r.run_id)).toEqual(
        newestFirst.slice(2, 5),
      );
      expect((await s.runs.search({ thread_id: thread.thread_id, limit: 100, metadata: { even: true } })).map((r) => r.run_id)).toEqual(
        newestFirst.filter((_, i) => i % 2 === 1),
      );
      await s.runs.transition(ids[0], "success");
      await s.runs.transition(ids[1], "error");
      expect((await s.runs.search({ thread_id: thread.thread_id, status: "success" })).map((r) => r.run_id)).toEqual([ids[0]]);
      expect((await s.runs.search({ thread_id: thread.thread_id, status: ["success", "error"] })).map((r) => r.run_id)).toEqual([
        ids[1],
        ids[0],
      ]);
      // Later created_at sorts first regardless of insertion order.
      const older = await s.runs.create({
        run_id: uid(),
        thread_id: thread.thread_id,
        assistant_id: assistant.assistant_id,
        created_at: new Date(Date.parse(at) - 60_000).toISOString(),
      });
      const all = await s.runs.search({ thread_id: thread.thread_id, limit: 100 });
      expect(all.at(-1)!.run_id).toBe(older.run_id);
      for (const r of all) expect(Object.keys(r).sort()).toEqual(RUN_KEYS);
      // Without thread_id: runs of every thread.
      const elsewhere = await newRun(s, { status: "error", assistant_id: assistant.assistant_id });
      const failed = (await s.runs.search({ status: "error", limit: 100 })).map((r) => r.run_id);
      expect(failed).toEqual(expect.arrayContaining([ids[1], elsewhere.run_id]));
      expect(await s.runs.search({ thread_id: uid() })).toEqual([]);
    });

    it("transition is a compare-and-set on the status and bumps updated_at", async () => {
      const s = await h.open();
      const run = await newRun(s);
      await sleep(2);
      const running = await s.runs.transition(run.run_id, "running", { from: ["pending"] });
      expect(running).toMatchObject({ run_id: run.run_id, status: "running" });
      expect(running!.updated_at > run.updated_at).toBe(true);
      expect(Object.keys(running!).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.transition(run.run_id, "running", { from: ["pending"] })).toBeNull();
      expect((await s.runs.get(run.run_id))!.status).toBe("running");
      expect(await s.runs.transition(run.run_id, "success", { from: ["running"] })).toMatchObject({ status: "success" });
      expect(await s.runs.transition(run.run_id, "interrupted", { from: ["pending", "running"] })).toBeNull();
      expect((await s.runs.get(run.run_id))!.status).toBe("success");
      // Without a guard any status may be written.
      expect(await s.runs.transition(run.run_id, "error")).toMatchObject({ status: "error" });
      expect(await s.runs.transition(uid(), "success")).toBeNull();
    });

    it("concurrent guarded transitions to a terminal status: exactly one wins", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const run = await newRun(s, { status: "running" });
      const targets: RunStatus[] = ["success", "interrupted", "error", "timeout"];
      const results = await Promise.all(
        targets.map((to, i) => (i % 2 === 0 ? s : other).runs.transition(run.run_id, to, { from: ["pending", "running"] })),
      );
      const winners = results.filter((r): r is Run => r !== null);
      expect(winners).toHaveLength(1);
      expect((await s.runs.get(run.run_id))!.status).toBe(winners[0].status);
    });

    it("delete removes the run and its events; unknown id is false; other runs stay", async () => {
      const s = await h.open();
      const run = await newRun(s);
      const sibling = await newRun(s, { thread_id: run.thread_id, assistant_id: run.assistant_id });
      await s.events.append(run.run_id, "values", { n: 1 }, { ttlMs: 60_000 });
      await s.events.append(sibling.run_id, "values", { n: 2 }, { ttlMs: 60_000 });
      expect(await s.runs.delete(run.run_id)).toBe(true);
      expect(await s.runs.get(run.run_id)).toBeNull();
      expect(await s.runs.getInternal(run.run_id)).toBeNull();
      expect(await s.events.list(run.run_id)).toEqual([]);
      expect(await s.runs.delete(run.run_id)).toBe(false);
      expect(await s.runs.delete(uid())).toBe(false);
      expect(await s.runs.get(sibling.run_id)).not.toBeNull();
      expect(await s.events.list(sibling.run_id)).toHaveLength(1);
      expect(await s.threads.get(run.thread_id)).not.toBeNull();
    });
  });
}
