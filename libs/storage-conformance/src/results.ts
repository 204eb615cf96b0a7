import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { toWireJson, WireSerializationError, type Run, type RunRepo, type RunResult, type Storage } from "@agent-server/core";
import { RUN_KEYS, awkwardValue, newRun, newThread, uid, type Harness } from "./harness.js";

export type ResultRepo = RunRepo & Required<Pick<RunRepo, "recordResult" | "getResult">>;

/**
 * The driver's run repo with its result methods. Registered only for a driver that declares
 * `{ results: true }`: one that lacks a method fails here, loudly, rather than skipping the check.
 */
export function results(s: Storage): ResultRepo {
  if (typeof s.runs.recordResult !== "function" || typeof s.runs.getResult !== "function") {
    throw new Error(
      `driver "${s.kind}" lacks RunRepo.recordResult/getResult: implement both, or declare { results: false } to describeStorageConformance`,
    );
  }
  return s.runs as ResultRepo;
}

const MARKER = "result-marker-7f3a";

export function sampleResult(threadId: string, value = "first"): RunResult {
  return {
    values: { messages: [{ type: "ai", content: `echo: ${value}` }], marker: MARKER },
    interrupts: [{ id: "int-1", value: { question: "continue?" } }],
    reply: { text: `echo: ${value}`, parts: [1, 2] },
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: "1f0-checkpoint" },
  };
}

/**
 * A result whose object keys are deliberately not in sorted order, nor in jsonb's (shorter keys first),
 * at every level: values, nested objects, objects in arrays, interrupts, the reply and the checkpoint.
 */
function unsortedResult(threadId: string): RunResult {
  return {
    values: {
      zeta: 1,
      a: 2,
      mm: { b: 1, a: 2, nested: { zz: [{ y: 1, x: 2, longer_key: true, k: null }], b: "x" } },
      messages: [{ type: "ai", content: "echo: unsorted", id: "m1" }],
    },
    interrupts: [{ value: { second: 2, first: 1 }, id: "int-z" }],
    reply: { text: "echo: unsorted", parts: [3, 1, 2], a: { d: 1, c: 2 } },
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: "1f0-checkpoint" },
  };
}

/** `value` with the keys of every object sorted: to show the sample's order is not the sorted one. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/** The results contract itself; `describeResultLifecycle` has what other operations do to results. */
export function describeResults(h: Harness): void {
  describe("run results", () => {
    it("RunRepo has both recordResult and getResult (the driver declares results)", async () => {
      const s = await h.open();
      expect({ recordResult: typeof s.runs.recordResult, getResult: typeof s.runs.getResult }).toEqual({
        recordResult: "function",
        getResult: "function",
      });
    });

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

    it("a result reads back as the same JSON text it was written as: object keys keep their written order, nested too", async () => {
      // Clients hash, cache and sign what they receive: GetTask must render the very document SendMessage
      // did. PostgreSQL's jsonb reorders keys (shorter first, then bytewise); a driver must not.
      let s = await h.open();
      const runs = results(s);
      const written = unsortedResult;
      expect(JSON.stringify(written(""))).not.toBe(JSON.stringify(sortedKeys(written(""))));
      const recorded = await newRun(s);
      await runs.recordResult(recorded.run_id, written(recorded.thread_id));
      const read = async (storage: Storage, runId: string) => JSON.stringify(await results(storage).getResult(runId));
      expect(await read(s, recorded.run_id)).toBe(JSON.stringify(written(recorded.thread_id)));
      // Through settlement's one-transaction write, when the driver has it.
      let settled: Run | undefined;
      if (s.runs.settle) {
        settled = await newRun(s, { created_at: new Date(Date.now() - 1000).toISOString() });
        expect((await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 }))?.run.run_id).toBe(settled.run_id);
        await s.runs.settle(settled.run_id, "success", { result: written(settled.thread_id), from: ["running"], owner: "w1" });
        expect(await read(s, settled.run_id)).toBe(JSON.stringify(written(settled.thread_id)));
      }
      // Thread copy carries the same text (its checkpoint coordinates remapped in place).
      const copyId = uid();
      expect(await s.threads.copy(recorded.thread_id, copyId)).not.toBeNull();
      const [copy] = await s.runs.search({ thread_id: copyId });
      expect(await read(s, copy!.run_id)).toBe(JSON.stringify(written(copyId)));
      if (h.hasReopen) {
        s = await h.reopen(s);
        expect(await read(s, recorded.run_id)).toBe(JSON.stringify(written(recorded.thread_id)));
        if (settled) expect(await read(s, settled.run_id)).toBe(JSON.stringify(written(settled.thread_id)));
      }
    });

    it("awkward JSON (emoji, NUL, RTL, 1 MB, Dates, 0.1, 1e21, empties) comes back as toWireJson of it", async () => {
      const s = await h.open();
      const runs = results(s);
      const run = await newRun(s);
      const expected = toWireJson(awkwardValue());
      await runs.recordResult(run.run_id, { values: awkwardValue(), reply: expected, interrupts: [{ value: awkwardValue() }] });
      expect(await runs.getResult(run.run_id)).toEqual({ values: expected, reply: expected, interrupts: [{ value: expected }] });
    });
  });
}
