import { describe, expect, it } from "vitest";
import { toWireJson } from "@agent-server/core";
import { awkwardValue, newRun, uid, type Harness } from "./harness.js";

/**
 * Every JSON column gets the same awkward value and must give back exactly `toWireJson` of it:
 * nesting, emoji, NUL, RTL, a 1 MB string, a Date (as its ISO string), 0.1, 1e21, empty object and array.
 */
export function describeWireJson(h: Harness): void {
  describe("JSON round trips through every JSON column", () => {
    const expected = () => toWireJson(awkwardValue());

    it("assistants: metadata, config, context (record and version)", async () => {
      const s = await h.open();
      const id = uid();
      await s.assistants.create({
        assistant_id: id,
        graph_id: "agent",
        metadata: awkwardValue(),
        config: { configurable: awkwardValue() },
        context: awkwardValue(),
      });
      const a = await s.assistants.get(id);
      expect(a!.metadata).toEqual(expected());
      expect(a!.config).toEqual({ configurable: expected() });
      expect(a!.context).toEqual(expected());
      const [v] = await s.assistants.listVersions(id);
      expect(v.metadata).toEqual(expected());
      expect(v.context).toEqual(expected());
      // A containment search still finds it by an awkward key.
      expect((await s.assistants.search({ metadata: { emoji: "😀👍🏽🏳️‍🌈", huge: 1e21, tenth: 0.1 } })).map((x) => x.assistant_id)).toEqual([
        id,
      ]);
    });

    it("threads: metadata, config, values, interrupts, error", async () => {
      const s = await h.open();
      const id = uid();
      await s.threads.create({ thread_id: id, metadata: awkwardValue(), config: { configurable: awkwardValue() } });
      await s.threads.update(id, { values: awkwardValue(), interrupts: { t: [{ value: awkwardValue() }] }, error: awkwardValue() });
      const t = await s.threads.get(id);
      expect(t!.metadata).toEqual(expected());
      expect(t!.config).toEqual({ configurable: expected() });
      expect(t!.values).toEqual(expected());
      expect(t!.interrupts).toEqual({ t: [{ value: expected() }] });
      expect(t!.error).toEqual(expected());
      expect((await s.threads.search({ values: { rtl: "مرحبا \u202Eabc\u202C שלום" } })).map((x) => x.thread_id)).toEqual([id]);
    });

    it("runs: metadata and kwargs", async () => {
      const s = await h.open();
      const run = await newRun(s, {
        metadata: awkwardValue(),
        kwargs: { input: awkwardValue(), config: { configurable: awkwardValue() } },
      });
      const read = await s.runs.get(run.run_id);
      expect(read!.metadata).toEqual(expected());
      expect(read!.kwargs).toEqual({ input: expected(), config: { configurable: expected() } });
      expect((await s.runs.search({ thread_id: run.thread_id, metadata: { nul: "a\u0000b" } })).map((r) => r.run_id)).toEqual([run.run_id]);
    });

    it("store values, event data, delivery payloads and headers, cron payload and metadata", async () => {
      const s = await h.open();
      await s.store.put(["wire"], "k", awkwardValue());
      expect((await s.store.get(["wire"], "k"))!.value).toEqual(expected());
      expect((await s.store.search(["wire"], { filter: { tenth: 0.1 } })).map((i) => i.key)).toEqual(["k"]);
      const runId = uid();
      await s.events.append(runId, "values", awkwardValue(), { ttlMs: 60_000 });
      expect((await s.events.list(runId))[0].data).toEqual(expected());
      const d = await s.deliveries.enqueue({
        delivery_id: uid(),
        kind: "webhook",
        url: "http://x",
        headers: { "x-emoji": "😀" },
        payload: awkwardValue(),
      });
      expect(await s.deliveries.get(d.delivery_id)).toMatchObject({ payload: expected(), headers: { "x-emoji": "😀" } });
      const a = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const c = await s.crons.create({
        cron_id: uid(),
        assistant_id: a.assistant_id,
        schedule: "* * * * *",
        next_run_date: null,
        payload: awkwardValue(),
        metadata: awkwardValue(),
      });
      expect(await s.crons.get(c.cron_id)).toMatchObject({ payload: expected(), metadata: expected() });
    });

    it("scalars and empties at the top of unknown-typed columns", async () => {
      const s = await h.open();
      const check = async (value: unknown) => {
        const runId = uid();
        await s.events.append(runId, "e", value, { ttlMs: 60_000 });
        expect((await s.events.list(runId))[0].data).toEqual(value);
        const d = await s.deliveries.enqueue({ delivery_id: uid(), kind: "webhook", url: "http://x", payload: value });
        expect((await s.deliveries.get(d.delivery_id))!.payload).toEqual(value);
      };
      for (const value of [0, 0.1, 1e21, -1, "", "😀\u0000", true, false, null, [], {}, [[]], [{}]]) await check(value);
      const id = uid();
      await s.assistants.create({ assistant_id: id, graph_id: "agent", context: "plain string" });
      expect((await s.assistants.get(id))!.context).toBe("plain string");
      const t = await s.threads.create({ thread_id: uid() });
      expect(await s.threads.update(t.thread_id, { values: {}, error: "just text" })).toMatchObject({ values: {}, error: "just text" });
    });
  });
}
