import { describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { newThread, uid, type Harness } from "./harness.js";
import { buildGraph, checkpointId, checkpointNs, graphValues, latestTuple, listCheckpoints, runGraph, runIdOf } from "./graph.js";

/** A thread with two runs that each executed the graph (root + subgraph namespaces). */
async function threadWithTwoRuns(s: Storage) {
  const thread = await newThread(s, { topic: "checkpoints" });
  const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
  const base = { thread_id: thread.thread_id, assistant_id: assistant.assistant_id };
  const r1 = await s.runs.create({ run_id: uid(), ...base, metadata: { turn: 1 } });
  await runGraph(s, thread.thread_id, r1.run_id, "one");
  await s.runs.transition(r1.run_id, "success");
  const r2 = await s.runs.create({ run_id: uid(), ...base, metadata: { turn: 2 } });
  await runGraph(s, thread.thread_id, r2.run_id, "two");
  await s.runs.transition(r2.run_id, "success");
  await s.threads.update(thread.thread_id, { values: await graphValues(s, thread.thread_id) });
  return { thread, r1, r2 };
}

const FINAL_VALUES = { log: ["one", "step", "inner", "two", "step", "inner"], count: 2 };

export function describeCheckpoints(h: Harness): void {
  describe("checkpoints: run_id metadata, rollback, erasure, copy, prune", () => {
    it("checkpoints written with configurable.run_id carry metadata.run_id, in every namespace", async () => {
      const s = await h.open();
      const { thread, r1, r2 } = await threadWithTwoRuns(s);
      const tuples = await listCheckpoints(s, thread.thread_id);
      expect(new Set(tuples.map(checkpointNs)).size).toBeGreaterThan(1);
      for (const t of tuples) expect([r1.run_id, r2.run_id]).toContain(runIdOf(t));
      for (const runId of [r1.run_id, r2.run_id]) {
        const own = tuples.filter((t) => runIdOf(t) === runId);
        expect(own.some((t) => checkpointNs(t) === "")).toBe(true);
        expect(own.some((t) => checkpointNs(t) !== "")).toBe(true);
      }
      expect(await graphValues(s, thread.thread_id)).toEqual(FINAL_VALUES);
    });

    it("every driver saves the same checkpoint metadata: scalar configurable keys, the config's metadata, run_id", async () => {
      const s = await h.open();
      const thread = await newThread(s, { topic: "metadata" });
      const runId = uid();
      const graph = buildGraph(s);
      await graph.invoke(
        { log: ["m"] },
        {
          configurable: { thread_id: thread.thread_id, run_id: runId, user_id: "u1", tries: 2, auth: { identity: "u1" }, __hidden: "x" },
          metadata: { run_metadata: "kept" },
        },
      );
      const tuples = await listCheckpoints(s, thread.thread_id);
      expect(tuples.length).toBeGreaterThan(0);
      for (const t of tuples) {
        const metadata = t.metadata as Record<string, unknown>;
        expect(metadata).toMatchObject({ run_id: runId, user_id: "u1", tries: 2, run_metadata: "kept" });
        for (const absent of ["auth", "__hidden"]) expect(metadata).not.toHaveProperty(absent);
      }
    });

    it("delete with checkpoints:true removes only that run's checkpoints; without it checkpoints stay", async () => {
      const s = await h.open();
      const { thread, r1, r2 } = await threadWithTwoRuns(s);
      const before = await listCheckpoints(s, thread.thread_id);
      const ofR1 = before.filter((t) => runIdOf(t) === r1.run_id);
      const ofR2 = before.filter((t) => runIdOf(t) === r2.run_id);
      expect(await s.runs.delete(r2.run_id, { checkpoints: true })).toBe(true);
      const after = await listCheckpoints(s, thread.thread_id);
      expect(after.map(checkpointId).sort()).toEqual(ofR1.map(checkpointId).sort());
      for (const t of ofR2) {
        const gone = await s.checkpointer.getTuple({
          configurable: { thread_id: thread.thread_id, checkpoint_ns: checkpointNs(t), checkpoint_id: checkpointId(t) },
        });
        expect(gone).toBeUndefined();
      }
      // The thread's state is back to what r1 left.
      expect(await graphValues(s, thread.thread_id)).toEqual({ log: ["one", "step", "inner"], count: 1 });
      expect(runIdOf((await latestTuple(s, thread.thread_id))!)).toBe(r1.run_id);
      expect(await s.runs.get(r1.run_id)).not.toBeNull();
      // A plain delete leaves the checkpoints.
      expect(await s.runs.delete(r1.run_id)).toBe(true);
      expect((await listCheckpoints(s, thread.thread_id)).length).toBe(ofR1.length);
    });

    it("thread delete removes its checkpoints, runs and events; other threads keep theirs", async () => {
      const s = await h.open();
      const { thread, r1, r2 } = await threadWithTwoRuns(s);
      const other = await threadWithTwoRuns(s);
      await s.events.append(r1.run_id, "values", { a: 1 }, { ttlMs: 60_000 });
      expect(await s.threads.delete(thread.thread_id)).toBe(true);
      expect(await latestTuple(s, thread.thread_id)).toBeUndefined();
      expect(await listCheckpoints(s, thread.thread_id)).toEqual([]);
      expect(await s.runs.get(r1.run_id)).toBeNull();
      expect(await s.runs.get(r2.run_id)).toBeNull();
      expect(await s.runs.search({ thread_id: thread.thread_id })).toEqual([]);
      expect(await s.events.list(r1.run_id)).toEqual([]);
      expect(await graphValues(s, other.thread.thread_id)).toEqual(FINAL_VALUES);
    });

    it("copy: new thread row, every checkpoint (same ids, new thread_id, the writing run_id kept), runs under new ids; source untouched", async () => {
      const s = await h.open();
      const { thread, r1, r2 } = await threadWithTwoRuns(s);
      await s.threads.update(thread.thread_id, { status: "interrupted", config: { configurable: { model: "m" } } });
      const source = (await s.threads.get(thread.thread_id))!;
      const sourceTuples = await listCheckpoints(s, thread.thread_id);
      const copyId = uid();
      const copy = await s.threads.copy(thread.thread_id, copyId);
      expect(copy).toMatchObject({
        thread_id: copyId,
        metadata: source.metadata,
        config: source.config,
        values: source.values,
        status: source.status,
      });
      expect(await s.threads.get(copyId)).toEqual(copy);

      const copiedTuples = await listCheckpoints(s, copyId);
      expect(copiedTuples.map((t) => `${checkpointNs(t)}/${checkpointId(t)}`).sort()).toEqual(
        sourceTuples.map((t) => `${checkpointNs(t)}/${checkpointId(t)}`).sort(),
      );
      for (const t of copiedTuples) expect(t.config.configurable?.thread_id).toBe(copyId);
      expect(await graphValues(s, copyId)).toEqual(FINAL_VALUES);

      const copiedRuns = await s.runs.search({ thread_id: copyId, limit: 100 });
      expect(copiedRuns.map((r) => r.metadata.turn).sort()).toEqual([1, 2]);
      const newIds = new Map(copiedRuns.map((r) => [r.metadata.turn, r.run_id]));
      expect([...newIds.values()]).not.toContain(r1.run_id);
      expect([...newIds.values()]).not.toContain(r2.run_id);
      // Checkpoint metadata keeps naming the run that wrote each checkpoint (the official server's copy
      // differs from its source only in thread_id), so a copied state equals its source's.
      const sourceRunOf = new Map(sourceTuples.map((t) => [`${checkpointNs(t)}/${checkpointId(t)}`, runIdOf(t)]));
      for (const t of copiedTuples) expect(runIdOf(t)).toBe(sourceRunOf.get(`${checkpointNs(t)}/${checkpointId(t)}`));
      // Rolling back a source run erases only the source's checkpoints: the copy keeps its history.
      await s.runs.delete(r2.run_id, { checkpoints: true });
      expect(await graphValues(s, copyId)).toEqual(FINAL_VALUES);
      expect((await listCheckpoints(s, copyId)).length).toBe(sourceTuples.length);
      expect(await graphValues(s, thread.thread_id)).toEqual({ log: ["one", "step", "inner"], count: 1 });
      // The copy is a live thread: graphs continue on it.
      const r3 = await s.runs.create({ run_id: uid(), thread_id: copyId, assistant_id: r1.assistant_id });
      await runGraph(s, copyId, r3.run_id, "three");
      expect((await graphValues(s, copyId)).count).toBe(3);
    });

    it("prune keep_latest keeps only the latest checkpoint per namespace; state stays readable; count returned", async () => {
      const s = await h.open();
      const a = await threadWithTwoRuns(s);
      const b = await threadWithTwoRuns(s);
      const untouched = await threadWithTwoRuns(s);
      const before = await listCheckpoints(s, a.thread.thread_id);
      const namespaces = [...new Set(before.map(checkpointNs))];
      const latest = new Map(
        namespaces.map((ns) => [
          ns,
          before
            .filter((t) => checkpointNs(t) === ns)
            .map(checkpointId)
            .sort()
            .at(-1),
        ]),
      );
      const latestRoot = await latestTuple(s, a.thread.thread_id);

      expect(await s.threads.prune([a.thread.thread_id, b.thread.thread_id, uid()], "keep_latest")).toBe(2);
      const after = await listCheckpoints(s, a.thread.thread_id);
      expect(after).toHaveLength(namespaces.length);
      for (const t of after) expect(checkpointId(t)).toBe(latest.get(checkpointNs(t)));
      const root = await latestTuple(s, a.thread.thread_id);
      expect(checkpointId(root!)).toBe(checkpointId(latestRoot!));
      expect(root!.checkpoint.channel_values).toMatchObject({ log: FINAL_VALUES.log, count: 2 });
      expect(await graphValues(s, a.thread.thread_id)).toEqual(FINAL_VALUES);
      // Thread and runs are kept.
      expect(await s.threads.get(a.thread.thread_id)).toMatchObject({ values: FINAL_VALUES });
      expect(await s.runs.get(a.r1.run_id)).not.toBeNull();
      expect((await listCheckpoints(s, untouched.thread.thread_id)).length).toBe(before.length);
      // The graph continues from the kept checkpoint.
      await runGraph(s, a.thread.thread_id, uid(), "three");
      expect((await graphValues(s, a.thread.thread_id)).count).toBe(3);
      // Pruning again keeps one per namespace.
      expect(await s.threads.prune([a.thread.thread_id], "keep_latest")).toBe(1);
      expect((await listCheckpoints(s, a.thread.thread_id)).length).toBe(
        new Set((await listCheckpoints(s, a.thread.thread_id)).map(checkpointNs)).size,
      );
    });

    it("prune delete removes threads with their checkpoints and runs; unknown ids are skipped", async () => {
      const s = await h.open();
      const a = await threadWithTwoRuns(s);
      const kept = await threadWithTwoRuns(s);
      expect(await s.threads.prune([a.thread.thread_id, uid()], "delete")).toBe(1);
      expect(await s.threads.get(a.thread.thread_id)).toBeNull();
      expect(await latestTuple(s, a.thread.thread_id)).toBeUndefined();
      expect(await s.runs.get(a.r2.run_id)).toBeNull();
      expect(await graphValues(s, kept.thread.thread_id)).toEqual(FINAL_VALUES);
    });

    it("list filters on metadata keys literally, whatever their characters (history's metadata filter)", async () => {
      const s = await h.open();
      const thread = await newThread(s, { topic: "filter-keys" });
      const odd = {
        "": "empty",
        "a.b": "dot",
        'q"k': "quote",
        "a\\b": "backslash",
        "[0]": "bracket",
        $: "dollar",
        "nul\u0000k": "nul\u0000v",
      };
      await buildGraph(s).invoke(
        { log: ["f"] },
        { configurable: { thread_id: thread.thread_id, run_id: uid() }, metadata: { ...odd, a: { b: "nested" } } },
      );
      const total = (await listCheckpoints(s, thread.thread_id)).length;
      const matching = async (filter: Record<string, unknown>, limit?: number) => {
        let n = 0;
        for await (const tuple of s.checkpointer.list({ configurable: { thread_id: thread.thread_id } }, { filter, limit })) {
          expect(tuple.metadata).toMatchObject(filter);
          n += 1;
        }
        return n;
      };
      for (const [key, value] of Object.entries(odd)) expect(await matching({ [key]: value }), JSON.stringify(key)).toBe(total);
      expect(await matching({ "a.b": "dot" }, 1)).toBe(1);
      // "a.b" names the key "a.b", not the path a → b.
      expect(await matching({ "a.b": "nested" })).toBe(0);
      expect(await matching({ "": "other" })).toBe(0);
    });
  });
}
