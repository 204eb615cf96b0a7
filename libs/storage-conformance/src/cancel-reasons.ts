import { describe, expect, it } from "vitest";
import { newRun, RUN_KEYS, uid, type Harness } from "./harness.js";

/**
 * A run's cancel reason (`Run.cancel_reason`): written by `transition` together with the cancel's
 * `interrupted` (no write of its own), part of every `Run` read (null when the run was not cancelled),
 * kept by later transitions without one, copied with a thread copy, kept across connections and reopen.
 */
export function describeCancelReasons(h: Harness): void {
  describe("run cancel reasons", () => {
    it("transition writes the reason with the status; get, search and the transition's own answer read it back", async () => {
      const s = await h.open();
      const run = await newRun(s, { status: "running" });
      expect(run.cancel_reason).toBeNull();
      const cancelled = await s.runs.transition(run.run_id, "interrupted", { from: ["running"], cancelReason: "taken:client" });
      expect(cancelled).toMatchObject({ status: "interrupted", cancel_reason: "taken:client" });
      expect(Object.keys(cancelled!).sort()).toEqual(RUN_KEYS);
      expect(await s.runs.get(run.run_id)).toMatchObject({ status: "interrupted", cancel_reason: "taken:client" });
      const [listed] = await s.runs.search({ thread_id: run.thread_id });
      expect(listed).toMatchObject({ run_id: run.run_id, cancel_reason: "taken:client" });
      // A later transition without a reason keeps it; one whose guard fails writes none.
      await s.runs.transition(run.run_id, "interrupted");
      expect((await s.runs.get(run.run_id))?.cancel_reason).toBe("taken:client");
      const other = await newRun(s, { thread_id: run.thread_id, assistant_id: run.assistant_id, status: "success" });
      expect(await s.runs.transition(other.run_id, "interrupted", { from: ["running"], cancelReason: "cancel:client" })).toBeNull();
      expect((await s.runs.get(other.run_id))?.cancel_reason).toBeNull();
    });

    it("a run that was not cancelled reads null everywhere; create stores a given reason (a snapshot import)", async () => {
      const s = await h.open();
      const run = await newRun(s, { status: "running" });
      await s.runs.transition(run.run_id, "success", { from: ["running"] });
      expect((await s.runs.get(run.run_id))?.cancel_reason).toBeNull();
      for (const listed of await s.runs.search({ thread_id: run.thread_id })) expect(listed.cancel_reason).toBeNull();
      const imported = await s.runs.create({
        run_id: uid(),
        thread_id: run.thread_id,
        assistant_id: run.assistant_id,
        status: "interrupted",
        cancel_reason: "interrupt:some-run",
      });
      expect(imported.cancel_reason).toBe("interrupt:some-run");
      expect((await s.runs.get(imported.run_id))?.cancel_reason).toBe("interrupt:some-run");
    });

    it("thread copy gives each copied run its source's reason", async () => {
      const s = await h.open();
      const first = await newRun(s, { status: "pending", metadata: { turn: 1 } });
      await s.runs.transition(first.run_id, "interrupted", { from: ["pending"], cancelReason: "disconnect:client" });
      await newRun(s, { thread_id: first.thread_id, assistant_id: first.assistant_id, status: "success", metadata: { turn: 2 } });
      const copyId = uid();
      expect(await s.threads.copy(first.thread_id, copyId)).not.toBeNull();
      const copied = new Map((await s.runs.search({ thread_id: copyId, limit: 10 })).map((r) => [r.metadata.turn, r.cancel_reason]));
      expect(copied).toEqual(
        new Map<unknown, unknown>([
          [1, "disconnect:client"],
          [2, null],
        ]),
      );
    });

    if (h.hasSibling)
      it("a sibling driver reads the reason another wrote", async () => {
        const s = await h.open();
        const other = await h.sibling(s);
        const run = await newRun(s, { status: "running" });
        await other.runs.transition(run.run_id, "interrupted", { from: ["running"], cancelReason: "cancel:client" });
        expect((await s.runs.get(run.run_id))?.cancel_reason).toBe("cancel:client");
      });

    if (h.hasReopen)
      it("a reason is there after reopen", async () => {
        const s = await h.open();
        const run = await newRun(s, { status: "running" });
        await s.runs.transition(run.run_id, "interrupted", { cancelReason: "taken:client" });
        const reopened = await h.reopen(s);
        expect((await reopened.runs.get(run.run_id))?.cancel_reason).toBe("taken:client");
      });
  });
}
