import { describe, expect, it } from "vitest";
import { addMs } from "@agent-server/core";
import { sleep, uid, type Harness } from "./harness.js";

export function describeEvents(h: Harness): void {
  describe("events (resumable streams)", () => {
    it("append gives increasing decimal ids per run; list returns append order, after an id, limited", async () => {
      const s = await h.open();
      const run = uid();
      const other = uid();
      const appended = [];
      for (let i = 0; i < 5; i++) appended.push(await s.events.append(run, i % 2 ? "values" : "updates", { i }, { ttlMs: 60_000 }));
      await s.events.append(other, "values", { other: true }, { ttlMs: 60_000 });
      for (const e of appended) expect(e.id).toMatch(/^\d+$/);
      for (let i = 1; i < appended.length; i++) expect(Number(appended[i].id)).toBeGreaterThan(Number(appended[i - 1].id));
      expect(appended[1]).toEqual({ id: appended[1].id, event: "values", data: { i: 1 } });
      expect(await s.events.list(run)).toEqual(appended);
      expect(await s.events.list(run, { after: appended[2].id })).toEqual(appended.slice(3));
      expect(await s.events.list(run, { after: appended[4].id })).toEqual([]);
      expect(await s.events.list(run, { limit: 2 })).toEqual(appended.slice(0, 2));
      expect(await s.events.list(run, { after: appended[0].id, limit: 2 })).toEqual(appended.slice(1, 3));
      expect(await s.events.list(uid())).toEqual([]);
    });

    it("data is stored as a wire-normalized copy", async () => {
      const s = await h.open();
      const run = uid();
      const data = { list: [1], when: new Date("2024-01-01T00:00:00.000Z"), gone: undefined };
      await s.events.append(run, "custom", data, { ttlMs: 60_000 });
      data.list.push(2);
      const [e] = await s.events.list(run);
      expect(e.data).toEqual({ list: [1], when: "2024-01-01T00:00:00.000Z" });
      await s.events.append(run, "end", null, { ttlMs: 60_000 });
      expect((await s.events.list(run))[1].data).toBeNull();
    });

    it("expired events are not listed and deleteExpired removes them", async () => {
      const s = await h.open();
      const run = uid();
      const keep = await s.events.append(run, "values", { keep: true }, { ttlMs: 3_600_000 });
      await s.events.append(run, "values", { short: true }, { ttlMs: 1 });
      await sleep(20);
      expect(await s.events.list(run)).toEqual([keep]);
      expect(await s.events.deleteExpired(new Date().toISOString())).toBe(1);
      expect(await s.events.deleteExpired(new Date().toISOString())).toBe(0);
      expect(await s.events.list(run)).toEqual([keep]);
      expect(await s.events.deleteExpired(addMs(new Date().toISOString(), 7_200_000))).toBe(1);
      expect(await s.events.list(run)).toEqual([]);
    });

    it("lists ids in numeric order past one digit, and never reuses an id after expiry or deleteForRun", async () => {
      const s = await h.open();
      const run = uid();
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) ids.push(Number((await s.events.append(run, "e", i, { ttlMs: 60_000 })).id));
      expect((await s.events.list(run)).map((e) => Number(e.id))).toEqual(ids);
      expect((await s.events.list(run, { after: String(ids[8]) })).map((e) => e.data)).toEqual([9, 10, 11]);
      await s.events.append(run, "short", null, { ttlMs: 1 });
      expect(await s.events.deleteForRun(run)).toBe(13);
      const after = await s.events.append(run, "again", null, { ttlMs: 1 });
      expect(Number(after.id)).toBeGreaterThan(ids[11]! + 1);
      await sleep(20);
      await s.events.deleteExpired(new Date().toISOString());
      expect(await s.events.list(run)).toEqual([]);
      expect(Number((await s.events.append(run, "later", null, { ttlMs: 60_000 })).id)).toBeGreaterThan(Number(after.id));
    });

    it("appendMany appends in order with ids after every earlier one; list and lastId see them", async () => {
      const s = await h.open();
      const run = uid();
      expect(s.events.appendMany, "EventRepo.appendMany (batched thread stream appends)").toBeTypeOf("function");
      const first = await s.events.append(run, "a", 0, { ttlMs: 60_000 });
      const batch = await s.events.appendMany!(
        run,
        Array.from({ length: 12 }, (_, i) => ({ event: i % 2 ? "b" : "c", data: { i, when: new Date(0) } })),
        { ttlMs: 60_000 },
      );
      expect(batch.map((e) => e.data)).toEqual(Array.from({ length: 12 }, (_, i) => ({ i, when: "1970-01-01T00:00:00.000Z" })));
      const ids = [first, ...batch].map((e) => Number(e.id));
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1]! + 1);
      expect(await s.events.list(run)).toEqual([first, ...batch]);
      expect(await s.events.lastId!(run)).toBe(batch.at(-1)!.id);
      expect(await s.events.appendMany!(run, [], { ttlMs: 60_000 })).toEqual([]);
      const after = await s.events.append(run, "d", null, { ttlMs: 60_000 });
      expect(Number(after.id)).toBe(ids.at(-1)! + 1);
    });

    it("lastId is the latest appended id of a run, null before its first event", async () => {
      const s = await h.open();
      const run = uid();
      expect(s.events.lastId, "EventRepo.lastId (the thread streaming protocol's applied_through_seq)").toBeTypeOf("function");
      expect(await s.events.lastId!(run)).toBeNull();
      await s.events.append(run, "a", 1, { ttlMs: 60_000 });
      const second = await s.events.append(run, "b", 2, { ttlMs: 60_000 });
      await s.events.append(uid(), "c", 3, { ttlMs: 60_000 });
      expect(await s.events.lastId!(run)).toBe(second.id);
    });

    it("deleteForRun removes one run's events and returns how many", async () => {
      const s = await h.open();
      const run = uid();
      const other = uid();
      await s.events.append(run, "a", 1, { ttlMs: 60_000 });
      await s.events.append(run, "b", 2, { ttlMs: 60_000 });
      await s.events.append(other, "c", 3, { ttlMs: 60_000 });
      expect(await s.events.deleteForRun(run)).toBe(2);
      expect(await s.events.list(run)).toEqual([]);
      expect(await s.events.list(other)).toHaveLength(1);
      expect(await s.events.deleteForRun(run)).toBe(0);
      expect(await s.events.deleteForRun(uid())).toBe(0);
    });
  });
}
