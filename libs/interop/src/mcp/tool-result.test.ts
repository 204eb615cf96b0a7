import { describe, expect, it } from "vitest";
import { failureText, toolResult, type CallOutcome } from "./tool-result.js";

const base: Omit<CallOutcome, "end" | "values"> = { toolName: "agent", assistantId: "a-1", threadId: "t-1", runId: "r-1" };

describe("tool results by how the run ended", () => {
  it("answers every run that did not succeed as a tool error naming why, with the thread and run in _meta", () => {
    for (const [end, text] of [
      [{ status: "timeout" }, "The run timed out before it finished."],
      [
        { status: "timeout", error: { error: "TimeoutError", message: "the run exceeded its time limit of 60 s and was stopped" } },
        "The run timed out: the run exceeded its time limit of 60 s and was stopped",
      ],
      [{ status: "interrupted" }, "The run was cancelled before it finished."],
      [{ status: "error", error: { error: "ValueError", message: "bad input" } }, "The run failed: ValueError: bad input"],
      [{ status: "error", error: { error: "WorkerLost", message: "" } }, "The run failed: WorkerLost"],
      [{ status: "error" }, "The run failed."],
    ] as const) {
      expect(toolResult({ ...base, end: { ...end, values: null }, values: null })).toEqual({
        content: [{ type: "text", text }],
        isError: true,
        _meta: { "langgraph/thread_id": "t-1", "langgraph/run_id": "r-1" },
      });
    }
  });

  it("cuts a long error message at 500 characters", () => {
    const text = failureText({ status: "error", error: { error: "E", message: "m".repeat(600) } });
    expect(text).toBe(`The run failed: E: ${"m".repeat(500)}…`);
  });

  it("answers the last AI message's text, else the values as JSON, with the values in structuredContent", () => {
    const messages = [
      { type: "human", content: "hi" },
      {
        type: "ai",
        content: [
          { type: "text", text: "hello " },
          { type: "text", text: "there" },
        ],
      },
    ];
    const chat = toolResult({ ...base, end: { status: "success", values: { messages } }, values: { messages } });
    expect(chat.content).toEqual([{ type: "text", text: "hello there" }]);
    expect(chat.structuredContent).toEqual({ thread_id: "t-1", run_id: "r-1", values: { messages } });
    const plain = toolResult({ ...base, end: { status: "success", values: { n: 1 } }, values: { n: 1 } });
    expect(plain.content).toEqual([{ type: "text", text: '{"n":1}' }]);
    expect(plain.isError).toBeUndefined();
  });

  it("says a run stopped at a breakpoint (no interrupt values) and how to go on", () => {
    const result = toolResult({ ...base, end: { status: "success", values: { n: 1 } }, values: { n: 1 }, interrupts: [] });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ thread_id: "t-1", run_id: "r-1", values: { n: 1 }, interrupts: [] });
    const text = (result.content[0] as { text: string }).text;
    expect(text.split("\n")[0]).toBe("The run stopped at a breakpoint on thread t-1.");
    expect(text).toContain('POST /threads/t-1/runs with {"assistant_id": "a-1", "command": {"resume": <your answer>}}');
  });
});
