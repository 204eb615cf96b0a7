import { describe, expect, it } from "vitest";
import { ConflictError, type Storage } from "@agent-server/core";
import { ISO_MS, newRun, sleep, uid, type Harness } from "./harness.js";

export function describeAssistants(h: Harness): void {
  describe("assistants", () => {
    it("create fills defaults and writes version 1; get returns it; unknown id is null", async () => {
      const s = await h.open();
      const id = uid();
      const created = await s.assistants.create({ assistant_id: id, graph_id: "agent" });
      expect(created).toMatchObject({
        assistant_id: id,
        graph_id: "agent",
        name: "Untitled",
        description: null,
        config: {},
        metadata: {},
        version: 1,
      });
      expect(created.created_at).toMatch(ISO_MS);
      expect(created.updated_at).toMatch(ISO_MS);
      expect(await s.assistants.get(id)).toEqual(created);
      expect(await s.assistants.get(uid())).toBeNull();
      const versions = await s.assistants.listVersions(id);
      expect(versions).toHaveLength(1);
      expect(versions[0]).toMatchObject({ assistant_id: id, version: 1, graph_id: "agent", name: "Untitled" });
    });

    it("create honours a given created_at (snapshot restore) for the assistant and its version 1", async () => {
      const s = await h.open();
      const restoredAt = "2021-03-04T05:06:07.089Z";
      const id = uid();
      const restored = await s.assistants.create({ assistant_id: id, graph_id: "agent", name: "old", created_at: restoredAt });
      expect(restored.created_at).toBe(restoredAt);
      expect(restored.updated_at).toMatch(ISO_MS);
      expect(restored.updated_at >= restoredAt).toBe(true);
      expect(await s.assistants.get(id)).toEqual(restored);
      expect((await s.assistants.listVersions(id))[0].created_at).toBe(restoredAt);
      const fresh = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      expect(fresh.created_at > restoredAt).toBe(true);
      const updated = await s.assistants.update(id, { name: "new" });
      expect(updated!.created_at).toBe(restoredAt);
      expect(updated!.updated_at > restoredAt).toBe(true);
      const versions = await s.assistants.listVersions(id);
      expect(versions.map((v) => v.version)).toEqual([2, 1]);
      expect(versions[1].created_at).toBe(restoredAt);
      expect(versions[0].created_at > restoredAt).toBe(true);
    });

    it("create with an existing id: raise throws ConflictError, do_nothing returns the existing one unchanged", async () => {
      const s = await h.open();
      const id = uid();
      const first = await s.assistants.create({ assistant_id: id, graph_id: "agent", name: "first", metadata: { a: 1 } });
      await expect(s.assistants.create({ assistant_id: id, graph_id: "other" }, { ifExists: "raise" })).rejects.toBeInstanceOf(
        ConflictError,
      );
      const again = await s.assistants.create({ assistant_id: id, graph_id: "other", name: "second" }, { ifExists: "do_nothing" });
      expect(again).toEqual(first);
      expect(await s.assistants.listVersions(id)).toHaveLength(1);
    });

    it("update writes version max+1 from the current one, merges metadata, bumps updated_at", async () => {
      const s = await h.open();
      const id = uid();
      const created = await s.assistants.create({
        assistant_id: id,
        graph_id: "agent",
        name: "n1",
        description: "d1",
        config: { configurable: { model: "a" } },
        context: { tone: "dry" },
        metadata: { keep: 1, replace: "old" },
      });
      await sleep(2);
      const updated = await s.assistants.update(id, { name: "n2", metadata: { replace: "new", added: true } });
      expect(updated).toMatchObject({
        assistant_id: id,
        version: 2,
        name: "n2",
        description: "d1",
        graph_id: "agent",
        config: { configurable: { model: "a" } },
        context: { tone: "dry" },
        metadata: { keep: 1, replace: "new", added: true },
        created_at: created.created_at,
      });
      expect(updated!.updated_at > created.updated_at).toBe(true);
      expect(await s.assistants.get(id)).toEqual(updated);
      const third = await s.assistants.update(id, { description: null, config: { tags: ["x"] } });
      expect(third).toMatchObject({ version: 3, description: null, config: { tags: ["x"] }, name: "n2" });
      expect(await s.assistants.update(uid(), { name: "x" })).toBeNull();
    });

    it("listVersions is newest first, filters by metadata, pages; setLatest switches the version in effect", async () => {
      const s = await h.open();
      const id = uid();
      await s.assistants.create({ assistant_id: id, graph_id: "agent", name: "v1", metadata: { tag: "one" } });
      await s.assistants.update(id, { name: "v2", metadata: { tag: "two" } });
      await s.assistants.update(id, { name: "v3", metadata: { tag: "three" } });
      expect((await s.assistants.listVersions(id)).map((v) => v.version)).toEqual([3, 2, 1]);
      expect((await s.assistants.listVersions(id, { limit: 1, offset: 1 })).map((v) => v.version)).toEqual([2]);
      expect((await s.assistants.listVersions(id, { metadata: { tag: "one" } })).map((v) => v.name)).toEqual(["v1"]);
      expect(await s.assistants.listVersions(uid())).toEqual([]);

      const back = await s.assistants.setLatest(id, 1);
      expect(back).toMatchObject({ version: 1, name: "v1", metadata: { tag: "one" } });
      expect(await s.assistants.get(id)).toMatchObject({ version: 1, name: "v1" });
      // The next update still writes max+1, built from the version in effect.
      const next = await s.assistants.update(id, { description: "after rollback" });
      expect(next).toMatchObject({ version: 4, name: "v1", description: "after rollback", metadata: { tag: "one" } });
      expect(await s.assistants.setLatest(id, 99)).toBeNull();
      expect(await s.assistants.setLatest(uid(), 1)).toBeNull();
      expect(await s.assistants.get(id)).toMatchObject({ version: 4 });
    });

    it("search filters by graph_id, case-insensitive name substring, metadata containment and auth filter; count agrees", async () => {
      const s = await h.open();
      const tag = uid();
      await s.assistants.create({
        assistant_id: uid(),
        graph_id: "g1",
        name: "Alpha bot",
        metadata: { tag, owner: "alice", tags: ["x", "y"], deep: { k: [1, 2] } },
      });
      await s.assistants.create({ assistant_id: uid(), graph_id: "g2", name: "beta bot", metadata: { tag, owner: "bob", tags: ["y"] } });
      await s.assistants.create({ assistant_id: uid(), graph_id: "g1", name: "gamma", metadata: { tag: "other", owner: "alice" } });
      const names = async (q: Parameters<Storage["assistants"]["search"]>[0]) =>
        (await s.assistants.search({ limit: 100, ...q })).map((a) => a.name).sort();
      expect(await names({ metadata: { tag } })).toEqual(["Alpha bot", "beta bot"]);
      expect(await names({ graph_id: "g1" })).toEqual(["Alpha bot", "gamma"]);
      expect(await names({ name: "bot" })).toEqual(["Alpha bot", "beta bot"]);
      // Case-insensitive substring, as the official server matches names; "_" and "%" are literal.
      expect(await names({ name: "ALPHA" })).toEqual(["Alpha bot"]);
      expect(await names({ name: "a_b" })).toEqual([]);
      expect(await names({ metadata: { deep: { k: [2] } } })).toEqual(["Alpha bot"]);
      expect(await names({ filter: { owner: "alice" } })).toEqual(["Alpha bot", "gamma"]);
      expect(await names({ filter: { owner: { $eq: "bob" } } })).toEqual(["beta bot"]);
      expect(await names({ filter: { tags: { $contains: "x" } } })).toEqual(["Alpha bot"]);
      expect(await names({ filter: { tags: { $contains: "y" }, owner: "bob" } })).toEqual(["beta bot"]);
      expect(await s.assistants.count({ metadata: { tag } })).toBe(2);
      expect(await s.assistants.count({ graph_id: "g1", filter: { owner: "alice" } })).toBe(2);
      expect(await s.assistants.count({ graph_id: "nope" })).toBe(0);
    });

    it("search orders by created_at desc by default, honours sort_by/sort_order, limit (default 10) and offset", async () => {
      const s = await h.open();
      const tag = uid();
      const ids: string[] = [];
      for (const name of ["c", "a", "d", "b"]) {
        ids.push((await s.assistants.create({ assistant_id: uid(), graph_id: "agent", name, metadata: { tag } })).assistant_id);
        await sleep(2);
      }
      const q = { metadata: { tag } };
      expect((await s.assistants.search(q)).map((a) => a.assistant_id)).toEqual([...ids].reverse());
      expect((await s.assistants.search({ ...q, sort_by: "name", sort_order: "asc" })).map((a) => a.name)).toEqual(["a", "b", "c", "d"]);
      expect((await s.assistants.search({ ...q, sort_by: "name", sort_order: "desc" })).map((a) => a.name)).toEqual(["d", "c", "b", "a"]);
      expect((await s.assistants.search({ ...q, sort_by: "created_at", sort_order: "asc" })).map((a) => a.assistant_id)).toEqual(ids);
      expect((await s.assistants.search({ ...q, sort_by: "name", sort_order: "asc", limit: 2, offset: 1 })).map((a) => a.name)).toEqual([
        "b",
        "c",
      ]);
      for (let i = 0; i < 12; i++) await s.assistants.create({ assistant_id: uid(), graph_id: "many", metadata: { tag: `${tag}-many` } });
      expect(await s.assistants.search({ metadata: { tag: `${tag}-many` } })).toHaveLength(10);
      expect(await s.assistants.count({ metadata: { tag: `${tag}-many` } })).toBe(12);
    });

    it("delete removes the assistant, its versions and its crons, not its runs; unknown id is false", async () => {
      const s = await h.open();
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const other = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      await s.assistants.update(assistant.assistant_id, { name: "v2" });
      const run = await newRun(s, { assistant_id: assistant.assistant_id });
      const otherRun = await newRun(s, { assistant_id: other.assistant_id, thread_id: run.thread_id });
      await s.events.append(run.run_id, "values", { a: 1 }, { ttlMs: 60_000 });
      const cron = await s.crons.create({
        cron_id: uid(),
        assistant_id: assistant.assistant_id,
        schedule: "* * * * *",
        next_run_date: null,
      });
      const otherCron = await s.crons.create({
        cron_id: uid(),
        assistant_id: other.assistant_id,
        schedule: "* * * * *",
        next_run_date: null,
      });

      expect(await s.assistants.delete(assistant.assistant_id)).toBe(true);
      expect(await s.assistants.get(assistant.assistant_id)).toBeNull();
      expect(await s.assistants.listVersions(assistant.assistant_id)).toEqual([]);
      expect(await s.crons.get(cron.cron_id)).toBeNull();
      // Its runs belong to their thread (and its owner): they stay, with their events, naming the deleted assistant.
      expect(await s.runs.get(run.run_id)).toEqual(run);
      expect(await s.events.list(run.run_id)).toHaveLength(1);
      // Nothing else is touched: the thread, the other assistant's run and cron.
      expect(await s.threads.get(run.thread_id)).not.toBeNull();
      expect(await s.runs.get(otherRun.run_id)).not.toBeNull();
      expect(await s.crons.get(otherCron.cron_id)).not.toBeNull();
      expect(await s.assistants.delete(assistant.assistant_id)).toBe(false);
      expect(await s.assistants.delete(uid())).toBe(false);
    });

    it("values are defensive copies: mutating input or output does not change what is stored", async () => {
      const s = await h.open();
      const metadata = { list: [1], nested: { a: "x" } };
      const config = { configurable: { k: "v" } };
      const created = await s.assistants.create({ assistant_id: uid(), graph_id: "agent", metadata, config });
      metadata.list.push(2);
      metadata.nested.a = "mutated";
      config.configurable.k = "mutated";
      (created.metadata as { list: number[] }).list.push(3);
      const read = await s.assistants.get(created.assistant_id);
      expect(read!.metadata).toEqual({ list: [1], nested: { a: "x" } });
      expect(read!.config).toEqual({ configurable: { k: "v" } });
      (read!.metadata as { list: number[] }).list.push(4);
      expect((await s.assistants.get(created.assistant_id))!.metadata).toEqual({ list: [1], nested: { a: "x" } });
    });
  });
}
