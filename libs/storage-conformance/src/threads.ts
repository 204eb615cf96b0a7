import { describe, expect, it } from "vitest";
import { ConflictError, readThreadHeader, type ThreadSearch } from "@agent-server/core";
import { ISO_MS, sleep, uid, type Harness } from "./harness.js";

export function describeThreads(h: Harness): void {
  describe("threads", () => {
    it("create fills defaults; get returns it; unknown id is null", async () => {
      const s = await h.open();
      const id = uid();
      const t = await s.threads.create({ thread_id: id });
      expect(t).toEqual({
        thread_id: id,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        metadata: {},
        config: {},
        status: "idle",
        values: null,
        interrupts: {},
        error: null,
      });
      expect(await s.threads.get(id)).toEqual(t);
      expect(await s.threads.get(uid())).toBeNull();
      const busy = await s.threads.create({ thread_id: uid(), status: "busy", metadata: { a: 1 }, config: { tags: ["t"] } });
      expect(busy).toMatchObject({ status: "busy", metadata: { a: 1 }, config: { tags: ["t"] } });
    });

    it("readThreadHeader (getHeader when the driver has it): the thread as get returns it, without values and interrupts", async () => {
      const s = await h.open();
      const t = await s.threads.create({ thread_id: uid(), metadata: { owner: "a" }, config: { tags: ["t"] } });
      const updated = await s.threads.update(t.thread_id, {
        status: "error",
        values: { messages: [{ type: "human", content: "hi" }] },
        interrupts: { task: [{ id: "i", value: "ask" }] },
        error: { error: "Boom", message: "it broke" },
      });
      const { values: _values, interrupts: _interrupts, ...header } = updated!;
      const read = await readThreadHeader(s.threads, t.thread_id);
      expect(read).toEqual(header);
      expect(read).not.toHaveProperty("values");
      expect(read).not.toHaveProperty("interrupts");
      expect(await readThreadHeader(s.threads, uid())).toBeNull();
      // A copy: changing what was read changes nothing stored.
      (read!.metadata as Record<string, unknown>).owner = "b";
      expect((await readThreadHeader(s.threads, t.thread_id))!.metadata).toEqual({ owner: "a" });
    });

    it("create honours a given created_at (snapshot restore): kept on reads, updates and in created_at order", async () => {
      const s = await h.open();
      const tag = uid();
      const restoredAt = "2021-03-04T05:06:07.089Z";
      const fresh = await s.threads.create({ thread_id: uid(), metadata: { tag } });
      const restored = await s.threads.create({ thread_id: uid(), metadata: { tag }, created_at: restoredAt });
      expect(restored.created_at).toBe(restoredAt);
      expect(restored.updated_at).toMatch(ISO_MS);
      expect(restored.updated_at >= restoredAt).toBe(true);
      expect(await s.threads.get(restored.thread_id)).toEqual(restored);
      expect((await s.threads.search({ metadata: { tag } })).map((t) => t.thread_id)).toEqual([fresh.thread_id, restored.thread_id]);
      const updated = await s.threads.update(restored.thread_id, { metadata: { touched: true } });
      expect(updated!.created_at).toBe(restoredAt);
      expect(updated!.updated_at > restoredAt).toBe(true);
      expect(fresh.created_at > restoredAt).toBe(true);
    });

    it("create with an existing id: raise (default) throws ConflictError, do_nothing returns the existing one", async () => {
      const s = await h.open();
      const id = uid();
      const first = await s.threads.create({ thread_id: id, metadata: { first: true } });
      await expect(s.threads.create({ thread_id: id })).rejects.toBeInstanceOf(ConflictError);
      await expect(s.threads.create({ thread_id: id }, { ifExists: "raise" })).rejects.toBeInstanceOf(ConflictError);
      expect(await s.threads.create({ thread_id: id, metadata: { second: true } }, { ifExists: "do_nothing" })).toEqual(first);
    });

    it("update merges metadata, replaces the other given fields, bumps updated_at; unknown id is null", async () => {
      const s = await h.open();
      const t = await s.threads.create({ thread_id: uid(), metadata: { keep: 1, replace: "old" } });
      await sleep(2);
      const updated = await s.threads.update(t.thread_id, {
        metadata: { replace: "new", added: [1] },
        status: "interrupted",
        values: { messages: [{ type: "ai", content: "hi" }] },
        interrupts: { task1: [{ id: "i1", value: { question: "?" } }] },
        error: { message: "boom" },
        config: { configurable: { x: 1 } },
      });
      expect(updated).toMatchObject({
        thread_id: t.thread_id,
        created_at: t.created_at,
        metadata: { keep: 1, replace: "new", added: [1] },
        status: "interrupted",
        values: { messages: [{ type: "ai", content: "hi" }] },
        interrupts: { task1: [{ id: "i1", value: { question: "?" } }] },
        error: { message: "boom" },
        config: { configurable: { x: 1 } },
      });
      expect(updated!.updated_at > t.updated_at).toBe(true);
      expect(await s.threads.get(t.thread_id)).toEqual(updated);
      const cleared = await s.threads.update(t.thread_id, { values: null, error: null, status: "idle" });
      expect(cleared).toMatchObject({ values: null, error: null, status: "idle", metadata: { keep: 1, replace: "new", added: [1] } });
      expect(await s.threads.update(uid(), { status: "busy" })).toBeNull();
      expect(await s.threads.get(t.thread_id)).toEqual(cleared);
    });

    it("search filters by ids, metadata, values, status and auth filter; count agrees", async () => {
      const s = await h.open();
      const tag = uid();
      const a = await s.threads.create({ thread_id: uid(), metadata: { tag, owner: "alice", tags: ["x", "y"] } });
      const b = await s.threads.create({ thread_id: uid(), metadata: { tag, owner: "bob", tags: ["y"] }, status: "busy" });
      const c = await s.threads.create({ thread_id: uid(), metadata: { tag, owner: "alice" } });
      await s.threads.update(a.thread_id, { values: { topic: "cats", n: [1, 2, 3] } });
      await s.threads.update(b.thread_id, { values: { topic: "dogs" } });
      const ids = async (q: ThreadSearch) => (await s.threads.search({ limit: 100, ...q })).map((t) => t.thread_id).sort();
      expect(await ids({ metadata: { tag } })).toEqual([a, b, c].map((t) => t.thread_id).sort());
      expect(await ids({ ids: [a.thread_id, c.thread_id, uid()] })).toEqual([a, c].map((t) => t.thread_id).sort());
      expect(await ids({ metadata: { tag }, status: "busy" })).toEqual([b.thread_id]);
      expect(await ids({ metadata: { tag }, values: { topic: "cats" } })).toEqual([a.thread_id]);
      expect(await ids({ metadata: { tag }, values: { n: [3] } })).toEqual([a.thread_id]);
      expect(await ids({ metadata: { tag, tags: ["y"] } })).toEqual([a, b].map((t) => t.thread_id).sort());
      expect(await ids({ metadata: { tag }, filter: { owner: "alice" } })).toEqual([a, c].map((t) => t.thread_id).sort());
      expect(await ids({ metadata: { tag }, filter: { owner: { $eq: "bob" } } })).toEqual([b.thread_id]);
      expect(await ids({ metadata: { tag }, filter: { tags: { $contains: "x" } } })).toEqual([a.thread_id]);
      expect(await s.threads.count({ metadata: { tag } })).toBe(3);
      expect(await s.threads.count({ metadata: { tag }, status: "idle" })).toBe(2);
      expect(await s.threads.count({ metadata: { tag }, values: { topic: "dogs" } })).toBe(1);
      expect(await s.threads.count({ metadata: { tag }, filter: { owner: "carol" } })).toBe(0);
    });

    it("search orders by created_at desc by default, honours sort_by/sort_order, limit (default 10) and offset", async () => {
      const s = await h.open();
      const tag = uid();
      const created: string[] = [];
      for (let i = 0; i < 4; i++) {
        created.push((await s.threads.create({ thread_id: uid(), metadata: { tag } })).thread_id);
        await sleep(2);
      }
      const byId = [...created].sort();
      const q = { metadata: { tag } };
      expect((await s.threads.search(q)).map((t) => t.thread_id)).toEqual([...created].reverse());
      expect((await s.threads.search({ ...q, sort_by: "thread_id", sort_order: "asc" })).map((t) => t.thread_id)).toEqual(byId);
      expect((await s.threads.search({ ...q, sort_by: "thread_id", sort_order: "desc" })).map((t) => t.thread_id)).toEqual(
        [...byId].reverse(),
      );
      expect((await s.threads.search({ ...q, sort_by: "created_at", sort_order: "asc" })).map((t) => t.thread_id)).toEqual(created);
      expect(
        (await s.threads.search({ ...q, sort_by: "thread_id", sort_order: "asc", limit: 2, offset: 2 })).map((t) => t.thread_id),
      ).toEqual(byId.slice(2));
      await sleep(2);
      await s.threads.update(created[0], { metadata: { touched: true } });
      expect((await s.threads.search({ ...q, sort_by: "updated_at", sort_order: "desc", limit: 1 }))[0].thread_id).toBe(created[0]);
      for (let i = 0; i < 11; i++) await s.threads.create({ thread_id: uid(), metadata: { tag: `${tag}-many` } });
      expect(await s.threads.search({ metadata: { tag: `${tag}-many` } })).toHaveLength(10);
    });

    it("delete returns true once; unknown id is false", async () => {
      const s = await h.open();
      const t = await s.threads.create({ thread_id: uid() });
      expect(await s.threads.delete(t.thread_id)).toBe(true);
      expect(await s.threads.get(t.thread_id)).toBeNull();
      expect(await s.threads.delete(t.thread_id)).toBe(false);
      expect(await s.threads.delete(uid())).toBe(false);
    });

    it("copy and prune of unknown threads: copy is null, prune skips them", async () => {
      const s = await h.open();
      expect(await s.threads.copy(uid(), uid())).toBeNull();
      const t = await s.threads.create({ thread_id: uid() });
      expect(await s.threads.prune([uid(), uid()], "delete")).toBe(0);
      expect(await s.threads.prune([uid(), t.thread_id], "keep_latest")).toBe(1);
      expect(await s.threads.get(t.thread_id)).not.toBeNull();
    });
  });
}
