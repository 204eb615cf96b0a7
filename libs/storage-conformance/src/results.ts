import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { toWireJson, WireSerializationError, type RunRepo, type RunResult, type Storage } from "@agent-server/core";
import { RUN_KEYS, newRun, newThread, uid, type Harness } from "./harness.js";

type ResultRepo = RunRepo & Required<Pick<RunRepo, "recordResult" | "getResult">>;

/** Every first-party driver has results (A2A needs both); a driver without them declares `{ results: false }`. */
function results(s: Storage): ResultRepo {
  if (typeof s.runs.recordResult !== "function" || typeof s.runs.getResult !== "function") {
    throw new Error(
      `driver "${s.kind}" lacks RunRepo.recordResult/getResult: implement both, or declare { results: false } to describeStorageConformance`,
    );
  }
  return s.runs as ResultRepo;
}

const MARKER = "result-marker-7f3a";

function sampleResult(threadId: string, value = "first"): RunResult {
  return {
    values: { messages: [{ type: "ai", content: `echo: ${value}` }], marker: MARKER },
    interrupts: [{ id: "int-1", value: { question: "continue?" } }],
    reply: { text: `echo: ${value}`, parts: [1, 2] },
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: "1f0-checkpoint" },
  };
}

export function describeResults(h: Harness): void {
  describe("run results", () => {
    it("recordResult/getResult round trip; null when no result or unknown run", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      expect(await runs.getResult(run.run_id)).toBeNull();
      expect(await runs.getResult(uid())).toBeNull();
      const result = sampleResult(run.thread_id);
      await runs.recordResult(run.run_id, result);
      expect(await runs.getResult(run.run_id)).toEqual(result);
      await runs.recordResult(run.run_id, { values: {} });
      expect(await runs.getResult(run.run_id)).toEqual(result);
      const minimal = await newRun(s);
      await runs.recordResult(minimal.run_id, { values: {} });
      expect(await runs.getResult(minimal.run_id)).toEqual({ values: {} });
    });

    it("recordResult on an unknown or deleted run is a no-op and creates nothing", async () => {
      const s = await h.open();
      const runs = results(s);
      const ghost = uid();
      await expect(runs.recordResult(ghost, { values: { a: 1 } })).resolves.toBeUndefined();
      expect(await runs.getResult(ghost)).toBeNull();
      expect(await runs.get(ghost)).toBeNull();
      expect(await runs.getInternal(ghost)).toBeNull();

      const run = await newRun(s);
      await runs.delete(run.run_id);
      await runs.recordResult(run.run_id, { values: { late: true } });
      expect(await runs.getResult(run.run_id)).toBeNull();
      // Re-creating the id later must not surface the late write.
      await runs.create({ run_id: run.run_id, thread_id: run.thread_id, assistant_id: run.assistant_id });
      expect(await runs.getResult(run.run_id)).toBeNull();
    });

    it("first write wins: a later write with another value changes nothing", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      await runs.recordResult(run.run_id, sampleResult(run.thread_id, "first"));
      await runs.recordResult(run.run_id, sampleResult(run.thread_id, "second"));
      await runs.transition(run.run_id, "success");
      await runs.recordResult(run.run_id, { values: { third: true } });
      expect(await runs.getResult(run.run_id)).toEqual(sampleResult(run.thread_id, "first"));
    });

    it("concurrent first writes in one driver: exactly one value is stored and every reader sees it", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      const candidates = ["a", "b", "c", "d"].map((v) => sampleResult(run.thread_id, v));
      await Promise.all(candidates.map((c) => runs.recordResult(run.run_id, c)));
      const [x, y] = await Promise.all([runs.getResult(run.run_id), runs.getResult(run.run_id)]);
      expect(candidates).toContainEqual(x);
      expect(y).toEqual(x);
    });

    if (h.hasSibling)
      it("concurrent first writes across connections: exactly one value is stored, both read the winner", async () => {
        const s = await h.open();
        const other = await h.sibling(s);
        const run = await newRun(s);
        for (let round = 0; round < 5; round++) {
          const target = round === 0 ? run : await newRun(s);
          const candidates = Array.from({ length: 6 }, (_, i) => sampleResult(target.thread_id, `${round}-${i}`));
          await Promise.all(candidates.map((c, i) => results(i % 2 ? other : s).recordResult(target.run_id, c)));
          const [x, y] = await Promise.all([results(s).getResult(target.run_id), results(other).getResult(target.run_id)]);
          expect(candidates).toContainEqual(x);
          expect(y).toEqual(x);
        }
      });

    it("values are defensive wire-normalized copies (Dates as ISO strings, messages as {...data, type})", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      const when = new Date("2025-01-02T03:04:05.006Z");
      const input = {
        values: {
          messages: [new HumanMessage({ content: "hi", id: "h1" }), new AIMessage({ content: "echo: hi", id: "a1" })],
          when,
          list: [1, undefined, 3],
          dropped: undefined,
          nested: { deep: ["x"] },
        },
        reply: "echo: hi",
      } as unknown as RunResult;
      const expected = toWireJson(input);
      await runs.recordResult(run.run_id, input);
      (input.values.nested as { deep: string[] }).deep.push("mutated");
      (input.values as Record<string, unknown>).added = true;
      const read = await runs.getResult(run.run_id);
      expect(read).toEqual(expected);
      expect(read!.values.when).toBe("2025-01-02T03:04:05.006Z");
      expect(read!.values.list).toEqual([1, null, 3]);
      expect("dropped" in read!.values).toBe(false);
      const [human, ai] = read!.values.messages as Array<Record<string, unknown>>;
      expect(human).toMatchObject({ type: "human", content: "hi", id: "h1" });
      expect(ai).toMatchObject({ type: "ai", content: "echo: hi", id: "a1" });
      (read!.values.nested as { deep: string[] }).deep.push("mutated-output");
      (read!.values as Record<string, unknown>).extra = 1;
      expect(await runs.getResult(run.run_id)).toEqual(expected);
    });

    it("a value that cannot be serialized throws WireSerializationError and stores nothing; a later valid write wins", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      const bad: unknown[] = [
        { values: { n: 10n } },
        { values: { cyclic } },
        { values: { f: () => 1 } },
        { values: {}, reply: { nested: [Symbol("x")] } },
      ];
      for (const value of bad) {
        await expect(runs.recordResult(run.run_id, value as RunResult)).rejects.toBeInstanceOf(WireSerializationError);
        expect(await runs.getResult(run.run_id)).toBeNull();
      }
      await runs.recordResult(run.run_id, { values: { ok: true } });
      expect(await runs.getResult(run.run_id)).toEqual({ values: { ok: true } });
    });

    it("run reads never carry results or internals", async () => {
      const s = await h.open();
      const runs = results(s);
      const thread = await newThread(s);
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const run = await runs.create(
        {
          run_id: uid(),
          thread_id: thread.thread_id,
          assistant_id: assistant.assistant_id,
          created_at: new Date(Date.now() - 1000).toISOString(),
        },
        { internal: { captureResult: true, taskId: uid() } },
      );
      await runs.recordResult(run.run_id, sampleResult(thread.thread_id));
      const reads: unknown[] = [
        await runs.get(run.run_id),
        await runs.get(run.run_id, thread.thread_id),
        ...(await runs.search({ thread_id: thread.thread_id })),
        ...(await runs.search({ status: "pending" })),
        (await runs.claimNext({ owner: "w", leaseMs: 60_000 }))?.run,
        await runs.transition(run.run_id, "success"),
      ];
      expect(reads.filter(Boolean)).toHaveLength(6);
      for (const r of reads) {
        expect(Object.keys(r as object).sort()).toEqual(RUN_KEYS);
        expect(JSON.stringify(r)).not.toContain(MARKER);
        expect(JSON.stringify(r)).not.toContain("captureResult");
      }
      expect(await runs.getResult(run.run_id)).toEqual(sampleResult(thread.thread_id));
    });

    it("erasure cascades results: run delete, thread delete, assistant delete, prune with delete", async () => {
      const s = await h.open();
      const runs = results(s);
      const viaRun = await newRun(s);
      const viaThread = await newRun(s);
      const viaAssistant = await newRun(s);
      const viaPrune = await newRun(s);
      const survivor = await newRun(s);
      for (const r of [viaRun, viaThread, viaAssistant, viaPrune, survivor])
        await runs.recordResult(r.run_id, { values: { id: r.run_id } });
      await runs.delete(viaRun.run_id);
      await s.threads.delete(viaThread.thread_id);
      await s.assistants.delete(viaAssistant.assistant_id);
      expect(await s.threads.prune([viaPrune.thread_id], "delete")).toBe(1);
      expect(await s.threads.get(viaPrune.thread_id)).toBeNull();
      for (const r of [viaRun, viaThread, viaAssistant, viaPrune]) {
        expect(await runs.getResult(r.run_id)).toBeNull();
        expect(await runs.get(r.run_id)).toBeNull();
      }
      // Re-created ids start without a result (nothing was left behind).
      for (const r of [viaRun, viaThread, viaPrune]) {
        const thread = (await s.threads.get(r.thread_id)) ?? (await s.threads.create({ thread_id: r.thread_id }));
        await runs.create({ run_id: r.run_id, thread_id: thread.thread_id, assistant_id: survivor.assistant_id });
        expect(await runs.getResult(r.run_id)).toBeNull();
      }
      expect(await runs.getResult(survivor.run_id)).toEqual({ values: { id: survivor.run_id } });
    });

    it("prune keep_latest keeps runs and their results", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      await runs.recordResult(run.run_id, sampleResult(run.thread_id));
      expect(await s.threads.prune([run.thread_id], "keep_latest")).toBe(1);
      expect(await runs.get(run.run_id)).not.toBeNull();
      expect(await runs.getResult(run.run_id)).toEqual(sampleResult(run.thread_id));
    });

    it("thread copy reattaches results to the new run ids, remapping checkpoint.thread_id and internal taskId", async () => {
      const s = await h.open();
      const runs = results(s);
      const thread = await newThread(s);
      const assistant = await s.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const base = { thread_id: thread.thread_id, assistant_id: assistant.assistant_id };
      const first = await runs.create(
        { run_id: uid(), ...base, status: "success", metadata: { turn: 1 } },
        { internal: { captureResult: true } },
      );
      const second = await runs.create(
        { run_id: uid(), ...base, status: "success", metadata: { turn: 2 } },
        { internal: { captureResult: true, taskId: first.run_id } },
      );
      const foreignTask = uid();
      const third = await runs.create(
        { run_id: uid(), ...base, status: "success", metadata: { turn: 3 } },
        { internal: { taskId: foreignTask } },
      );
      await runs.recordResult(first.run_id, sampleResult(thread.thread_id, "first"));
      await runs.recordResult(second.run_id, {
        ...sampleResult(thread.thread_id, "second"),
        checkpoint: { thread_id: "elsewhere", checkpoint_ns: "", checkpoint_id: "x" },
      });

      const copyId = uid();
      expect(await s.threads.copy(thread.thread_id, copyId)).not.toBeNull();
      const copied = await runs.search({ thread_id: copyId, limit: 100 });
      expect(copied).toHaveLength(3);
      const byTurn = new Map(copied.map((r) => [r.metadata.turn as number, r]));
      const [c1, c2, c3] = [byTurn.get(1)!, byTurn.get(2)!, byTurn.get(3)!];
      for (const [c, original] of [
        [c1, first],
        [c2, second],
        [c3, third],
      ] as const) {
        expect(c.run_id).not.toBe(original.run_id);
        expect(c).toMatchObject({
          thread_id: copyId,
          assistant_id: original.assistant_id,
          status: original.status,
          created_at: original.created_at,
        });
      }
      const expectedFirst = sampleResult(thread.thread_id, "first");
      expect(await runs.getResult(c1.run_id)).toEqual({
        ...expectedFirst,
        checkpoint: { ...expectedFirst.checkpoint!, thread_id: copyId },
      });
      // Only coordinates that point at the source thread are remapped.
      expect((await runs.getResult(c2.run_id))!.checkpoint).toEqual({ thread_id: "elsewhere", checkpoint_ns: "", checkpoint_id: "x" });
      expect(await runs.getResult(c3.run_id)).toBeNull();
      expect(await runs.getInternal(c1.run_id)).toEqual({ captureResult: true });
      expect(await runs.getInternal(c2.run_id)).toEqual({ captureResult: true, taskId: c1.run_id });
      expect(await runs.getInternal(c3.run_id)).toEqual({ taskId: foreignTask });
      // The source is untouched, and the copies are independent of it.
      expect(await runs.getResult(first.run_id)).toEqual(expectedFirst);
      expect(await runs.getInternal(second.run_id)).toEqual({ captureResult: true, taskId: first.run_id });
      await runs.delete(first.run_id);
      expect(await runs.getResult(c1.run_id)).not.toBeNull();
      await s.threads.delete(copyId);
      expect(await runs.getResult(c1.run_id)).toBeNull();
      expect(await runs.getResult(second.run_id)).not.toBeNull();
    });
  });
}
