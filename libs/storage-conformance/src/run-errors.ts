import { describe, expect, it } from "vitest";
import type { Run, RunError, RunStatus, Storage } from "@agent-server/core";
import { newRun, RUN_KEYS, uid, type Harness } from "./harness.js";

const failure: RunError = { error: "ValueError", message: "boom" };

/**
 * A run's own error (`RunRepo.getError`): written by `transition` together with the terminal status,
 * never part of `Run`, erased with the run, copied with a thread copy, kept across connections and reopen.
 */
export function describeRunErrors(h: Harness): void {
  describe("run errors", () => {
    it("transition stores the error with the status; runs read as before; a transition without error keeps it", async () => {
      const s = await h.open();
      const run = await newRun(s, { status: "running" });
      expect(await s.runs.getError(run.run_id)).toBeNull();
      const failed = await s.runs.transition(run.run_id, "error", { from: ["running"], error: failure });
      expect(failed).toMatchObject({ status: "error" });
      expect(Object.keys(failed!).sort()).toEqual(RUN_KEYS);
      expect(Object.keys((await s.runs.get(run.run_id))!).sort()).toEqual(RUN_KEYS);
      for (const listed of await s.runs.search({ thread_id: run.thread_id })) expect(Object.keys(listed).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.getError(run.run_id)).toEqual(failure);
      // Fresh copies: what a caller does to one read does not reach the next.
      (await s.runs.getError(run.run_id))!.message = "changed";
      expect(await s.runs.getError(run.run_id)).toEqual(failure);
      await s.runs.transition(run.run_id, "error");
      expect(await s.runs.getError(run.run_id)).toEqual(failure);
      expect(await s.runs.getError(uid())).toBeNull();
    });

    it("a transition whose guard fails stores no error; of racing terminal writes, the winner's error is stored", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const lost = await newRun(s, { status: "interrupted" });
      expect(await s.runs.transition(lost.run_id, "error", { from: ["running"], error: failure })).toBeNull();
      expect(await s.runs.getError(lost.run_id)).toBeNull();
      expect(await s.runs.transition(uid(), "error", { error: failure })).toBeNull();

      const raced = await newRun(s, { status: "running" });
      const targets: RunStatus[] = ["error", "timeout", "error", "interrupted"];
      const writes = await Promise.all(
        targets.map((to, i) =>
          (i % 2 === 0 ? s : other).runs.transition(raced.run_id, to, {
            from: ["running"],
            ...(to === "interrupted" ? {} : { error: { error: `E${i}`, message: `writer ${i}` } }),
          }),
        ),
      );
      const winner = writes.findIndex((r: Run | null) => r !== null);
      expect(writes.filter((r) => r !== null)).toHaveLength(1);
      expect(await s.runs.getError(raced.run_id)).toEqual(
        targets[winner] === "interrupted" ? null : { error: `E${winner}`, message: `writer ${winner}` },
      );
    });

    it("keeps only the type and message, wire-safe: NUL, quotes, non-ASCII and long messages round-trip", async () => {
      const s = await h.open();
      const run = await newRun(s, { status: "running" });
      const message = `a\u0000b "quoted" \\ é 日本 🙂 ${"x".repeat(2000)}`;
      const extra = { error: "TypeError", message, stack: "at secret (/srv/app.js:1:1)" } as RunError;
      await s.runs.transition(run.run_id, "error", { error: extra });
      expect(await s.runs.getError(run.run_id)).toEqual({ error: "TypeError", message });
    });

    it("create stores an error given with the run (a snapshot import of a failed run)", async () => {
      const s = await h.open();
      const run = await newRun(s);
      const imported = await s.runs.create(
        { run_id: uid(), thread_id: run.thread_id, assistant_id: run.assistant_id, status: "error" },
        { error: failure },
      );
      expect(Object.keys(imported).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.getError(imported.run_id)).toEqual(failure);
      expect(await s.runs.getError(run.run_id)).toBeNull();
    });

    it("goes with its run: run delete, rollback, thread delete, prune with delete; prune keep_latest keeps it", async () => {
      const s = await h.open();
      const failed = async () => {
        const run = await newRun(s, { status: "running" });
        await s.runs.transition(run.run_id, "error", { error: { error: "E", message: run.run_id } });
        return run;
      };
      const [viaRun, viaRollback, viaThread, viaPrune, kept] = [
        await failed(),
        await failed(),
        await failed(),
        await failed(),
        await failed(),
      ];
      await s.runs.delete(viaRun.run_id);
      await s.runs.delete(viaRollback.run_id, { checkpoints: true });
      await s.threads.delete(viaThread.thread_id);
      await s.threads.prune([viaPrune.thread_id], "delete");
      await s.threads.prune([kept.thread_id], "keep_latest");
      for (const gone of [viaRun, viaRollback, viaThread, viaPrune]) {
        expect(await s.runs.getError(gone.run_id)).toBeNull();
        // The same id created again starts without an error: nothing was left behind.
        const thread = (await s.threads.get(gone.thread_id)) ?? (await s.threads.create({ thread_id: gone.thread_id }));
        await s.runs.create({ run_id: gone.run_id, thread_id: thread.thread_id, assistant_id: gone.assistant_id });
        expect(await s.runs.getError(gone.run_id)).toBeNull();
      }
      expect(await s.runs.getError(kept.run_id)).toEqual({ error: "E", message: kept.run_id });
    });

    it("thread copy gives each copied run its source's error; the copies are independent", async () => {
      const s = await h.open();
      const first = await newRun(s, { status: "running", metadata: { turn: 1 } });
      await s.runs.transition(first.run_id, "error", { error: failure });
      await newRun(s, { thread_id: first.thread_id, assistant_id: first.assistant_id, status: "success", metadata: { turn: 2 } });
      const copyId = uid();
      expect(await s.threads.copy(first.thread_id, copyId)).not.toBeNull();
      const copied = new Map((await s.runs.search({ thread_id: copyId, limit: 10 })).map((r) => [r.metadata.turn, r.run_id]));
      expect(await s.runs.getError(copied.get(1)!)).toEqual(failure);
      expect(await s.runs.getError(copied.get(2)!)).toBeNull();
      await s.threads.delete(copyId);
      expect(await s.runs.getError(first.run_id)).toEqual(failure);
    });

    if (h.hasSibling)
      it("a sibling driver reads the error another wrote", async () => {
        const s = await h.open();
        const other = await h.sibling(s);
        const run = await newRun(s, { status: "running" });
        await other.runs.transition(run.run_id, "error", { from: ["running"], error: failure });
        expect(await s.runs.getError(run.run_id)).toEqual(failure);
      });

    if (h.hasReopen)
      it("an error is there after reopen", async () => {
        let s: Storage = await h.open();
        const run = await newRun(s, { status: "running" });
        await s.runs.transition(run.run_id, "error", { from: ["running"], error: failure });
        s = await h.reopen(s);
        expect(await s.runs.getError(run.run_id)).toEqual(failure);
        expect(Object.keys((await s.runs.get(run.run_id))!).sort()).toEqual(RUN_KEYS);
      });
  });
}
