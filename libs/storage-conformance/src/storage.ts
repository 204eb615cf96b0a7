import { describe, expect, it } from "vitest";
import { uid, type Harness } from "./harness.js";
import { graphValues, latestTuple, listCheckpoints, runGraph } from "./graph.js";

export function describeStorage(h: Harness): void {
  describe("storage: kind, truncate, close", () => {
    it("has a kind, every repository, a checkpointer and a langgraphStore", async () => {
      const s = await h.open();
      expect(typeof s.kind).toBe("string");
      expect(s.kind.length).toBeGreaterThan(0);
      for (const repo of [s.assistants, s.threads, s.runs, s.store, s.crons, s.deliveries, s.events]) expect(repo).toBeTruthy();
      expect(typeof s.checkpointer.getTuple).toBe("function");
      expect(typeof s.langgraphStore.batch).toBe("function");
    });

    it("truncate resets only what the flags name", async () => {
      const s = await h.open();
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const thread = await s.threads.create({ thread_id: uid() });
      const run = await s.runs.create({ run_id: uid(), thread_id: thread.thread_id, assistant_id: assistant.assistant_id });
      await runGraph(s, thread.thread_id, run.run_id, "x");
      await s.store.put(["t"], "k", { v: 1 });

      await s.truncate({});
      expect(await s.store.get(["t"], "k")).not.toBeNull();
      expect(await s.runs.get(run.run_id)).not.toBeNull();

      await s.truncate({ store: true });
      expect(await s.store.get(["t"], "k")).toBeNull();
      expect(await s.threads.get(thread.thread_id)).not.toBeNull();
      expect(await s.assistants.get(assistant.assistant_id)).not.toBeNull();
      expect(await s.runs.get(run.run_id)).not.toBeNull();
      expect(await latestTuple(s, thread.thread_id)).toBeDefined();

      await s.truncate({ runs: true });
      expect(await s.runs.get(run.run_id)).toBeNull();
      expect(await s.runs.search({ thread_id: thread.thread_id })).toEqual([]);
      expect(await s.threads.get(thread.thread_id)).not.toBeNull();
      expect(await latestTuple(s, thread.thread_id)).toBeDefined();

      await s.truncate({ checkpointer: true });
      expect(await latestTuple(s, thread.thread_id)).toBeUndefined();
      expect(await s.threads.get(thread.thread_id)).not.toBeNull();

      await s.truncate({ threads: true });
      expect(await s.threads.get(thread.thread_id)).toBeNull();
      expect(await s.assistants.get(assistant.assistant_id)).not.toBeNull();

      await s.truncate({ assistants: true });
      expect(await s.assistants.get(assistant.assistant_id)).toBeNull();
      // The driver stays usable.
      const again = await s.threads.create({ thread_id: uid() });
      expect(await s.threads.get(again.thread_id)).toEqual(again);
    });

    it("close resolves", async () => {
      const s = await h.open();
      await expect(h.close(s)).resolves.toBeUndefined();
    });

    it("ping answers while the driver is open and rejects once it is closed", async () => {
      const s = await h.open();
      if (!s.ping) return;
      await expect(s.ping()).resolves.toBeUndefined();
      await h.close(s);
      await expect(s.ping()).rejects.toThrow(/closed/);
    });

    if (h.hasSibling) {
      it("a sibling driver sees the same data, including checkpoints", async () => {
        const s = await h.open();
        const other = await h.sibling(s);
        const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
        const thread = await s.threads.create({ thread_id: uid() });
        const run = await other.runs.create({ run_id: uid(), thread_id: thread.thread_id, assistant_id: assistant.assistant_id });
        await runGraph(other, thread.thread_id, run.run_id, "x");
        expect(await s.runs.get(run.run_id)).toEqual(await other.runs.get(run.run_id));
        expect(await graphValues(s, thread.thread_id)).toEqual({ log: ["x", "step", "inner"], count: 1 });
        expect((await listCheckpoints(s, thread.thread_id)).length).toBeGreaterThan(0);
        await s.store.put(["sib"], "k", { v: 1 });
        expect((await other.store.get(["sib"], "k"))!.value).toEqual({ v: 1 });
      });
    }
  });
}
