import { describe, expect, it } from "vitest";
import type { CopySourceRun } from "./thread-copy.js";
import { copiedCheckpointMetadata, planThreadCopy } from "./thread-copy.js";

const ids = () => {
  let n = 0;
  return () => `new-${++n}`;
};

const checkpoint = (thread_id: string) => ({ thread_id, checkpoint_ns: "", checkpoint_id: "c1" });

describe("planThreadCopy", () => {
  it("gives every run a new id on the new thread, in the source order, with no lease", () => {
    const plan = planThreadCopy(
      "src",
      "dst",
      [
        { run_id: "a", internal: {}, result: null },
        { run_id: "b", internal: {}, result: null },
      ],
      ids(),
    );
    expect(plan).toEqual([
      { source_run_id: "a", run_id: "new-1", thread_id: "dst", internal: {}, result: null, lease: null },
      { source_run_id: "b", run_id: "new-2", thread_id: "dst", internal: {}, result: null, lease: null },
    ]);
  });

  it("remaps a taskId naming a copied run, keeps one naming a run outside the thread, and keeps other internals", () => {
    const plan = planThreadCopy(
      "src",
      "dst",
      [
        { run_id: "root", internal: { captureResult: true, message: { parts: [1] } }, result: null },
        { run_id: "cont", internal: { captureResult: true, taskId: "root" }, result: null },
        { run_id: "other", internal: { taskId: "elsewhere" }, result: null },
      ],
      ids(),
    );
    expect(plan.map((r) => r.internal)).toEqual([
      { captureResult: true, message: { parts: [1] } },
      { captureResult: true, taskId: "new-1" },
      { taskId: "elsewhere" },
    ]);
  });

  it("moves a result's checkpoint to the copy only when it points at the source thread", () => {
    const plan = planThreadCopy(
      "src",
      "dst",
      [
        { run_id: "a", internal: {}, result: { values: { v: 1 }, reply: "hi", checkpoint: checkpoint("src") } },
        { run_id: "b", internal: {}, result: { values: {}, checkpoint: checkpoint("other") } },
        { run_id: "c", internal: {}, result: { values: {} } },
      ],
      ids(),
    );
    expect(plan.map((r) => r.result)).toEqual([
      { values: { v: 1 }, reply: "hi", checkpoint: checkpoint("dst") },
      { values: {}, checkpoint: checkpoint("other") },
      { values: {} },
    ]);
  });

  it("leaves its inputs untouched and shares no object with them", () => {
    const source: CopySourceRun[] = [
      { run_id: "root", internal: { captureResult: true }, result: { values: { list: [1] }, checkpoint: checkpoint("src") } },
      { run_id: "cont", internal: { taskId: "root" }, result: null },
    ];
    const before = structuredClone(source);
    const plan = planThreadCopy("src", "dst", source);
    expect(source).toEqual(before);
    (plan[0].result!.values.list as number[]).push(2);
    expect(source[0].result!.values.list).toEqual([1]);
    // Default ids are fresh UUIDs, distinct from the sources'.
    expect(new Set(plan.map((r) => r.run_id)).size).toBe(2);
    for (const r of plan) expect(r.run_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("copiedCheckpointMetadata", () => {
  it("names the copy where the metadata named the source thread, keeps run_id and the rest", () => {
    const metadata = { thread_id: "src", run_id: "r1", step: 2, source: "loop" };
    expect(copiedCheckpointMetadata(metadata, "src", "dst")).toEqual({ thread_id: "dst", run_id: "r1", step: 2, source: "loop" });
    expect(metadata.thread_id).toBe("src");
  });

  it("returns the same object when the metadata names no thread or another one", () => {
    const without = { run_id: "r1" };
    const other = { thread_id: "elsewhere", run_id: "r1" };
    expect(copiedCheckpointMetadata(without, "src", "dst")).toBe(without);
    expect(copiedCheckpointMetadata(other, "src", "dst")).toBe(other);
  });
});
