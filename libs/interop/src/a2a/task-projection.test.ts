import { TaskState } from "@a2a-js/sdk";
import type { Run } from "@agent-server/core";
import { describe, expect, it } from "vitest";
import { taskState } from "./task-projection.js";

const run = (status: Run["status"], metadata: Run["metadata"] = {}): Run => ({
  run_id: "r",
  thread_id: "t",
  assistant_id: "a",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  status,
  metadata,
  kwargs: {},
  multitask_strategy: "reject",
});

describe("taskState", () => {
  it("a pending run is SUBMITTED until it has been worked on: handed back (run_attempt > 1) it stays WORKING", () => {
    expect(taskState(run("pending"), [])).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(taskState(run("pending", { run_attempt: 1 }), [])).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(taskState(run("pending", { run_attempt: 2 }), [])).toBe(TaskState.TASK_STATE_WORKING);
    expect(taskState(run("running"), [])).toBe(TaskState.TASK_STATE_WORKING);
    expect(taskState(run("interrupted", { run_attempt: 2 }), [])).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
