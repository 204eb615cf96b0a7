import { describe, expect, it } from "vitest";
import { addMs, type Storage } from "@agent-server/core";
import { uid, type Harness } from "./harness.js";
import { graphValues, listCheckpoints, runGraph } from "./graph.js";

/** Registered only when the factory provides `reopen`. */
export function describeReopen(h: Harness): void {
  describe("persistence across reopen", () => {
    it("everything written is there after reopen", async () => {
      let s: Storage = await h.open();
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent", metadata: { m: 1 } });
      await s.assistants.update(assistant.assistant_id, { name: "v2" });
      const thread = await s.threads.create({ thread_id: uid(), metadata: { t: 1 } });
      const run = await s.runs.create(
        { run_id: uid(), thread_id: thread.thread_id, assistant_id: assistant.assistant_id, kwargs: { input: { q: "?" } } },
        { internal: { captureResult: true } },
      );
      await runGraph(s, thread.thread_id, run.run_id, "before");
      await s.runs.transition(run.run_id, "success");
      await s.threads.update(thread.thread_id, { values: await graphValues(s, thread.thread_id) });
      await s.store.put(["persist", "ns"], "k", { v: "kept" });
      const cron = await s.crons.create({
        cron_id: uid(),
        assistant_id: assistant.assistant_id,
        schedule: "* * * * *",
        next_run_date: "2030-01-01T00:00:00.000Z",
      });
      const delivery = await s.deliveries.enqueue({ delivery_id: uid(), kind: "webhook", url: "http://x", payload: { p: 1 } });
      const event = await s.events.append(run.run_id, "values", { e: 1 }, { ttlMs: 3_600_000 });
      const snapshot = {
        assistant: await s.assistants.get(assistant.assistant_id),
        versions: await s.assistants.listVersions(assistant.assistant_id),
        thread: await s.threads.get(thread.thread_id),
        run: await s.runs.get(run.run_id),
        checkpoints: (await listCheckpoints(s, thread.thread_id)).map((t) => t.config.configurable?.checkpoint_id),
        item: await s.store.get(["persist", "ns"], "k"),
        cron: await s.crons.get(cron.cron_id),
        delivery: await s.deliveries.get(delivery.delivery_id),
      };

      s = await h.reopen(s);
      expect(await s.assistants.get(assistant.assistant_id)).toEqual(snapshot.assistant);
      expect(await s.assistants.listVersions(assistant.assistant_id)).toEqual(snapshot.versions);
      expect(await s.threads.get(thread.thread_id)).toEqual(snapshot.thread);
      expect(await s.runs.get(run.run_id)).toEqual(snapshot.run);
      expect(await s.runs.getInternal(run.run_id)).toEqual({ captureResult: true });
      expect((await listCheckpoints(s, thread.thread_id)).map((t) => t.config.configurable?.checkpoint_id)).toEqual(snapshot.checkpoints);
      expect(await graphValues(s, thread.thread_id)).toEqual({ log: ["before", "step", "inner"], count: 1 });
      expect(await s.store.get(["persist", "ns"], "k")).toEqual(snapshot.item);
      expect(await s.crons.get(cron.cron_id)).toEqual(snapshot.cron);
      expect(await s.deliveries.get(delivery.delivery_id)).toEqual(snapshot.delivery);
      expect(await s.events.list(run.run_id)).toEqual([event]);
      // Event ids keep increasing after a reopen.
      const next = await s.events.append(run.run_id, "values", { e: 2 }, { ttlMs: 3_600_000 });
      expect(Number(next.id)).toBeGreaterThan(Number(event.id));
      // The graph continues from the persisted checkpoint (results after a reopen: the run results block).
      const r2 = await s.runs.create({ run_id: uid(), thread_id: thread.thread_id, assistant_id: assistant.assistant_id });
      await runGraph(s, thread.thread_id, r2.run_id, "after");
      expect((await graphValues(s, thread.thread_id)).count).toBe(2);
    });

    it("the queue survives a reopen: pending runs are claimed, leases are still tracked", async () => {
      let s: Storage = await h.open();
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const base = new Date(Date.now() - 3_600_000).toISOString();
      const t1 = await s.threads.create({ thread_id: uid() });
      const t2 = await s.threads.create({ thread_id: uid() });
      const leased = await s.runs.create({
        run_id: uid(),
        thread_id: t1.thread_id,
        assistant_id: assistant.assistant_id,
        created_at: base,
      });
      const pending = await s.runs.create({
        run_id: uid(),
        thread_id: t2.thread_id,
        assistant_id: assistant.assistant_id,
        created_at: addMs(base, 1),
      });
      await s.runs.claimNext({ owner: "dead-worker", leaseMs: 1_000, now: addMs(base, 10) });
      s = await h.reopen(s);
      expect((await s.runs.listExpiredLeases(new Date().toISOString(), 10)).map((r) => r.run_id)).toEqual([leased.run_id]);
      expect(await s.runs.claimNext({ owner: "w", leaseMs: 60_000 })).toMatchObject({ run: { run_id: pending.run_id }, attempt: 1 });
      await s.runs.transition(leased.run_id, "pending", { from: ["running"] });
      expect(await s.runs.claimNext({ owner: "w", leaseMs: 60_000 })).toMatchObject({ run: { run_id: leased.run_id }, attempt: 2 });
    });
  });
}
