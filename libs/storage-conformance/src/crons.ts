import { describe, expect, it } from "vitest";
import { addMs, type Storage } from "@agent-server/core";
import { ISO_MS, newThread, sleep, uid, type Harness } from "./harness.js";

async function assistant(s: Storage): Promise<string> {
  return (await s.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
}

export function describeCrons(h: Harness): void {
  describe("crons", () => {
    it("create fills defaults; get; update replaces given fields; delete; unknown ids", async () => {
      const s = await h.open();
      const assistantId = await assistant(s);
      const next = new Date(Date.now() + 60_000).toISOString();
      const cron = await s.crons.create({ cron_id: uid(), assistant_id: assistantId, schedule: "*/5 * * * *", next_run_date: next });
      expect(cron).toEqual({
        cron_id: cron.cron_id,
        assistant_id: assistantId,
        thread_id: null,
        schedule: "*/5 * * * *",
        payload: {},
        metadata: {},
        user_id: null,
        end_time: null,
        next_run_date: next,
        on_run_completed: "delete",
        enabled: true,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(await s.crons.get(cron.cron_id)).toEqual(cron);
      await sleep(2);
      const updated = await s.crons.update(cron.cron_id, {
        schedule: "0 * * * *",
        payload: { input: { x: 1 } },
        enabled: false,
        end_time: "2030-01-01T00:00:00.000Z",
        on_run_completed: "keep",
        user_id: "u1",
        metadata: { team: "a" },
      });
      expect(updated).toMatchObject({
        schedule: "0 * * * *",
        payload: { input: { x: 1 } },
        enabled: false,
        end_time: "2030-01-01T00:00:00.000Z",
        on_run_completed: "keep",
        user_id: "u1",
        metadata: { team: "a" },
        next_run_date: next,
        created_at: cron.created_at,
      });
      expect(updated!.updated_at > cron.updated_at).toBe(true);
      expect(await s.crons.get(cron.cron_id)).toEqual(updated);
      expect(await s.crons.update(uid(), { enabled: true })).toBeNull();
      expect(await s.crons.get(uid())).toBeNull();
      expect(await s.crons.delete(cron.cron_id)).toBe(true);
      expect(await s.crons.get(cron.cron_id)).toBeNull();
      expect(await s.crons.delete(cron.cron_id)).toBe(false);
    });

    it("search filters by assistant, thread, enabled, auth filter; sorts; pages; count agrees", async () => {
      const s = await h.open();
      const a1 = await assistant(s);
      const a2 = await assistant(s);
      const thread = await newThread(s);
      const mk = async (assistant_id: string, extra: Record<string, unknown>, next: number) => {
        const c = await s.crons.create({
          cron_id: uid(),
          assistant_id,
          schedule: "* * * * *",
          next_run_date: new Date(Date.UTC(2030, 0, 1, 0, next)).toISOString(),
          ...extra,
        });
        await sleep(2);
        return c.cron_id;
      };
      const c1 = await mk(a1, { metadata: { owner: "alice", tags: ["x"] } }, 3);
      const c2 = await mk(a1, { thread_id: thread.thread_id, metadata: { owner: "bob" }, enabled: false }, 1);
      const c3 = await mk(a2, { metadata: { owner: "alice" } }, 2);
      const ids = async (q: Parameters<typeof s.crons.search>[0]) => (await s.crons.search(q)).map((c) => c.cron_id);
      expect(await ids({})).toEqual([c3, c2, c1]);
      expect(await ids({ assistant_id: a1 })).toEqual([c2, c1]);
      expect(await ids({ thread_id: thread.thread_id })).toEqual([c2]);
      expect(await ids({ enabled: true })).toEqual([c3, c1]);
      expect(await ids({ filter: { owner: "alice" } })).toEqual([c3, c1]);
      expect(await ids({ filter: { owner: { $eq: "bob" } } })).toEqual([c2]);
      expect(await ids({ filter: { tags: { $contains: "x" } } })).toEqual([c1]);
      expect(await ids({ sort_by: "next_run_date", sort_order: "asc" })).toEqual([c2, c3, c1]);
      expect(await ids({ sort_by: "next_run_date", sort_order: "desc", limit: 1, offset: 1 })).toEqual([c3]);
      expect(await ids({ sort_by: "created_at", sort_order: "asc" })).toEqual([c1, c2, c3]);
      expect(await s.crons.count({})).toBe(3);
      expect(await s.crons.count({ assistant_id: a1, enabled: true })).toBe(1);
      expect(await s.crons.count({ filter: { owner: "carol" } })).toBe(0);
      for (let i = 0; i < 9; i++) await s.crons.create({ cron_id: uid(), assistant_id: a2, schedule: "* * * * *", next_run_date: null });
      expect(await s.crons.search({})).toHaveLength(10);
    });

    it("listDue: enabled crons with next_run_date <= now, earliest first, limited", async () => {
      const s = await h.open();
      const a = await assistant(s);
      const now = new Date().toISOString();
      const mk = async (offsetMs: number | null, enabled = true) =>
        (
          await s.crons.create({
            cron_id: uid(),
            assistant_id: a,
            schedule: "* * * * *",
            next_run_date: offsetMs === null ? null : addMs(now, offsetMs),
            enabled,
          })
        ).cron_id;
      const late = await mk(-1_000);
      const early = await mk(-60_000);
      const exact = await mk(0);
      await mk(60_000);
      await mk(null);
      await mk(-120_000, false);
      expect((await s.crons.listDue(now, 10)).map((c) => c.cron_id)).toEqual([early, late, exact]);
      expect((await s.crons.listDue(now, 2)).map((c) => c.cron_id)).toEqual([early, late]);
      expect(await s.crons.listDue(addMs(now, -600_000), 10)).toEqual([]);
    });

    it("advance is a compare-and-set on next_run_date; concurrent advances of one tick: exactly one wins", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const a = await assistant(s);
      const t0 = "2030-01-01T00:00:00.000Z";
      const t1 = "2030-01-01T00:01:00.000Z";
      const cron = await s.crons.create({ cron_id: uid(), assistant_id: a, schedule: "* * * * *", next_run_date: t0 });
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? other : s).crons.advance(cron.cron_id, t0, t1)));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect((await s.crons.get(cron.cron_id))!.next_run_date).toBe(t1);
      expect(await s.crons.advance(cron.cron_id, t0, "2030-01-01T00:02:00.000Z")).toBe(false);
      expect(await s.crons.advance(cron.cron_id, t1, null)).toBe(true);
      expect((await s.crons.get(cron.cron_id))!.next_run_date).toBeNull();
      expect(await s.crons.listDue("2999-01-01T00:00:00.000Z", 10)).toEqual([]);
      expect(await s.crons.advance(uid(), t0, t1)).toBe(false);
    });
  });
}
