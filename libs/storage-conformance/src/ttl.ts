import { describe, expect, it } from "vitest";
import type { Storage, ThreadTtl } from "@agent-server/core";
import { checkpointNs, graphValues, listCheckpoints, runGraph } from "./graph.js";
import { sleep, uid, type Harness } from "./harness.js";

/** `minutes` from now, as the `now` a sweep is given: tests move the sweep's clock instead of sleeping. */
const inMinutes = (minutes: number, from = Date.now()) => new Date(from + minutes * 60_000).toISOString();

async function threadWithTtl(s: Storage, ttl: ThreadTtl) {
  const thread = await s.threads.create({ thread_id: uid(), metadata: { topic: "ttl" }, ttl });
  return thread.thread_id;
}

/** A thread with `ttl` and two runs that each executed the graph (root + subgraph namespaces). */
async function threadWithTwoRuns(s: Storage, ttl: ThreadTtl) {
  const threadId = await threadWithTtl(s, ttl);
  const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
  const runs = [];
  for (const label of ["one", "two"]) {
    const run = await s.runs.create({ run_id: uid(), thread_id: threadId, assistant_id: assistant.assistant_id });
    await runGraph(s, threadId, run.run_id, label);
    await s.runs.transition(run.run_id, "success");
    runs.push(run);
  }
  return { threadId, runs, assistantId: assistant.assistant_id };
}

const sweepAll = (s: Storage, now: string) => s.store.sweepExpired!(now, 1000);

/** TTL sweeps (conformance part `ttl`): store item expiry and refresh, thread expiry by strategy, bounded rounds. */
export function describeTtl(h: Harness): void {
  describe("TTL: store items", () => {
    it("an expired item is gone for get, search and listNamespaces before any sweep; the sweep deletes it", async () => {
      const s = await h.open();
      const ns = ["ttl", uid()];
      // 600 ms: read at once after its put, it is still there even on a loaded machine.
      await s.store.put(ns, "long", { v: 2 }, { ttl: 60 });
      await s.store.put(ns, "forever", { v: 3 });
      await s.store.put([...ns, "only-short"], "k", { v: 4 }, { ttl: 0.01 });
      await s.store.put(ns, "short", { v: 1 }, { ttl: 0.01 });
      expect(await s.store.get(ns, "short")).toMatchObject({ value: { v: 1 } });
      await sleep(650);
      expect(await s.store.get(ns, "short")).toBeNull();
      expect((await s.store.search(ns, { limit: 10 })).map((i) => i.key).sort()).toEqual(["forever", "long"]);
      expect(await s.store.listNamespaces({ prefix: ns })).toEqual([ns]);
      expect(await sweepAll(s, new Date().toISOString())).toBe(2);
      expect(await sweepAll(s, new Date().toISOString())).toBe(0);
      // Only items with a TTL ever expire.
      expect(await sweepAll(s, inMinutes(120))).toBe(1);
      expect((await s.store.search(ns)).map((i) => i.key)).toEqual(["forever"]);
    });

    it("a put over an expired item creates it anew; a put without ttl clears the item's TTL", async () => {
      const s = await h.open();
      const ns = ["ttl", uid()];
      await s.store.put(ns, "k", { v: 1 }, { ttl: 0.01 }); // 600 ms
      const first = await s.store.get(ns, "k");
      await sleep(650);
      await s.store.put(ns, "k", { v: 2 });
      const second = await s.store.get(ns, "k");
      expect(second).toMatchObject({ value: { v: 2 } });
      expect(second!.created_at > first!.created_at).toBe(true);
      expect(await sweepAll(s, inMinutes(600))).toBe(0);
    });

    it("a read with refreshTtl pushes the expiry out by the item's TTL (get and search); without it the expiry stays", async () => {
      const s = await h.open();
      const ns = ["ttl", uid()];
      for (const key of ["got", "searched", "plain"]) await s.store.put(ns, key, { key }, { ttl: 0.02 }); // 1.2 s
      await sleep(300);
      const refreshedAt = Date.now();
      expect(await s.store.get(ns, "got", { refreshTtl: true })).toMatchObject({ key: "got" });
      expect((await s.store.search(ns, { filter: { key: "searched" }, refreshTtl: true })).map((i) => i.key)).toEqual(["searched"]);
      expect(await s.store.get(ns, "plain")).not.toBeNull(); // a read without refresh changes nothing
      // 1 s after the refresh: "plain" (put ≥ 300 ms before) has expired, the refreshed ones have not.
      expect(await sweepAll(s, new Date(refreshedAt + 1000).toISOString())).toBe(1);
      expect(await sweepAll(s, new Date(refreshedAt + 1300).toISOString())).toBe(2);
    });

    it("a sweep deletes at most `limit` items, soonest expiry first", async () => {
      const s = await h.open();
      const ns = ["ttl", uid()];
      for (let i = 0; i < 5; i++) await s.store.put(ns, `k${i}`, { i }, { ttl: 1 + i });
      const later = inMinutes(30);
      expect(await s.store.sweepExpired!(later, 2)).toBe(2);
      expect((await s.store.search(ns)).length).toBe(3);
      expect(await s.store.sweepExpired!(later, 2)).toBe(2);
      expect(await s.store.sweepExpired!(later, 2)).toBe(1);
      expect(await s.store.sweepExpired!(later, 2)).toBe(0);
    });
  });

  describe("TTL: threads", () => {
    it("listExpired lists threads past their TTL, soonest first, bounded, skipping busy threads and threads without a TTL", async () => {
      const s = await h.open();
      const later = await threadWithTtl(s, { strategy: "delete", minutes: 5 });
      const sooner = await threadWithTtl(s, { strategy: "keep_latest", minutes: 1 });
      const busy = await threadWithTtl(s, { strategy: "delete", minutes: 1 });
      await s.threads.create({ thread_id: uid() }); // no TTL: never
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      await s.runs.create({ run_id: uid(), thread_id: busy, assistant_id: assistant.assistant_id });

      const mine = (list: { thread_id: string }[]) => list.filter((t) => [later, sooner, busy].includes(t.thread_id));
      expect(mine(await s.threads.listExpired!(new Date().toISOString(), 100))).toEqual([]);
      expect(mine(await s.threads.listExpired!(inMinutes(2), 100))).toEqual([{ thread_id: sooner, strategy: "keep_latest" }]);
      expect(mine(await s.threads.listExpired!(inMinutes(10), 100))).toEqual([
        { thread_id: sooner, strategy: "keep_latest" },
        { thread_id: later, strategy: "delete" },
      ]);
      expect(await s.threads.listExpired!(inMinutes(10), 1)).toHaveLength(1);
      expect(await s.threads.sweep!(busy, inMinutes(10))).toBeNull();
      expect(await s.threads.get(busy)).not.toBeNull();
    });

    it("sweep with delete takes the thread, its runs, results and checkpoints; a second sweep finds nothing", async () => {
      const s = await h.open();
      const { threadId, runs } = await threadWithTwoRuns(s, { strategy: "delete", minutes: 1 });
      expect(await s.threads.sweep!(threadId, new Date().toISOString())).toBeNull(); // not expired yet
      expect(await s.threads.sweep!(threadId, inMinutes(2))).toBe("delete");
      expect(await s.threads.get(threadId)).toBeNull();
      expect(await s.runs.get(runs[0]!.run_id)).toBeNull();
      expect(await listCheckpoints(s, threadId)).toEqual([]);
      expect(await s.threads.sweep!(threadId, inMinutes(2))).toBeNull();
    });

    it("sweep with keep_latest keeps the thread, its runs and its latest checkpoint per namespace, and restarts its clock", async () => {
      const s = await h.open();
      const { threadId, runs } = await threadWithTwoRuns(s, { strategy: "keep_latest", minutes: 1 });
      const before = await listCheckpoints(s, threadId);
      const namespaces = new Set(before.map(checkpointNs));
      expect(before.length).toBeGreaterThan(namespaces.size);
      const values = await graphValues(s, threadId);
      const at = inMinutes(2);
      expect(await s.threads.sweep!(threadId, at)).toBe("keep_latest");
      expect(await listCheckpoints(s, threadId)).toHaveLength(namespaces.size);
      expect(await graphValues(s, threadId)).toEqual(values);
      expect(await s.runs.get(runs[1]!.run_id)).not.toBeNull();
      expect(await s.threads.get(threadId)).toMatchObject({ updated_at: at });
      // Swept once: not expired again until its TTL has passed from the sweep.
      expect(await s.threads.sweep!(threadId, at)).toBeNull();
      expect((await s.threads.listExpired!(at, 100)).map((t) => t.thread_id)).not.toContain(threadId);
    });

    it("an update restarts a thread's clock; a patch replaces or removes its TTL; a copy keeps it", async () => {
      const s = await h.open();
      const threadId = await threadWithTtl(s, { strategy: "delete", minutes: 1 });
      const ids = async (now: string) => (await s.threads.listExpired!(now, 1000)).map((t) => t.thread_id);
      await sleep(5);
      const updated = await s.threads.update(threadId, { metadata: { touched: true } });
      // Expires 1 minute after its last update, not after its creation.
      expect(await ids(inMinutes(1, Date.parse(updated!.updated_at) - 1))).not.toContain(threadId);
      expect(await ids(inMinutes(1, Date.parse(updated!.updated_at)))).toContain(threadId);
      const copy = await s.threads.copy(threadId, uid());
      expect(await ids(inMinutes(2))).toContain(copy!.thread_id);
      await s.threads.update(threadId, { ttl: { strategy: "keep_latest", minutes: 10 } });
      expect(await ids(inMinutes(2))).not.toContain(threadId);
      expect((await s.threads.listExpired!(inMinutes(11), 1000)).find((t) => t.thread_id === threadId)).toEqual({
        thread_id: threadId,
        strategy: "keep_latest",
      });
      await s.threads.update(threadId, { ttl: null });
      expect(await ids(inMinutes(100_000))).not.toContain(threadId);
    });
  });

  describe("TTL: two connections sweeping at once", () => {
    it("no store item and no thread is swept twice", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const ns = ["ttl", uid()];
      for (let i = 0; i < 30; i++) await s.store.put(ns, `k${i}`, { i }, { ttl: 1 });
      const threads = [];
      for (let i = 0; i < 6; i++) threads.push(await threadWithTtl(s, { strategy: i % 2 ? "delete" : "keep_latest", minutes: 1 }));
      const at = inMinutes(2);
      const counts = await Promise.all([s.store.sweepExpired!(at, 1000), other.store.sweepExpired!(at, 1000)]);
      expect(counts[0] + counts[1]).toBe(30);
      const swept = await Promise.all(threads.flatMap((id) => [s.threads.sweep!(id, at), other.threads.sweep!(id, at)]));
      for (let i = 0; i < threads.length; i++) {
        const pair = [swept[2 * i], swept[2 * i + 1]];
        expect(pair.filter((x) => x !== null)).toEqual([i % 2 ? "delete" : "keep_latest"]);
      }
    });
  });
}

/** For a driver declared without TTL sweeps: neither store nor thread sweep methods are there. */
export function describeTtlAbsent(h: Harness): void {
  describe("TTL sweeps (left out by this driver)", () => {
    it("has no store.sweepExpired, threads.listExpired nor threads.sweep", async () => {
      const s = await h.open();
      expect({ store: s.store.sweepExpired, list: s.threads.listExpired, sweep: s.threads.sweep }).toEqual({
        store: undefined,
        list: undefined,
        sweep: undefined,
      });
    });
  });
}
