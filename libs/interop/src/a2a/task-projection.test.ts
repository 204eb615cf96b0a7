import { TaskState } from "@a2a-js/sdk";
import { toWireJson, type JsonValue, type Run, type RunResult } from "@agent-server/core";
import { describe, expect, it } from "vitest";
import { projectTask, taskState } from "./task-projection.js";

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

describe("projectTask", () => {
  it("renders a result settlement holds in memory and its stored (wire JSON) copy as one document", () => {
    // Keys out of order, a Date and a message as LangChain's classes are (`toDict()` and a `toJSON()` giving
    // its constructor form, which JSON.stringify would use): the stored copy is toWireJson of all of it.
    // (interop does not depend on @langchain/core: the message is written out.)
    const message = {
      toDict: () => ({ type: "ai", data: { content: "hi", id: "m1" } }),
      toJSON: () => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "hi" } }),
    };
    const inMemory = {
      values: { zeta: 1, a: { when: new Date("2026-01-02T03:04:05.006Z"), b: [1, undefined] }, messages: [message] },
      reply: { z: "last", a: new Date("2026-01-02T03:04:05.006Z"), message } as unknown as JsonValue,
    } as unknown as RunResult;
    const stored = JSON.parse(JSON.stringify(toWireJson(inMemory))) as RunResult;
    const rendered = (result: RunResult) => JSON.stringify(projectTask({ run: run("success"), result }));
    expect(rendered(inMemory)).toBe(rendered(stored));
    expect(rendered(stored)).toContain(
      '{\\"z\\":\\"last\\",\\"a\\":\\"2026-01-02T03:04:05.006Z\\",\\"message\\":{\\"content\\":\\"hi\\",\\"id\\":\\"m1\\",\\"type\\":\\"ai\\"}}',
    );
  });
});
