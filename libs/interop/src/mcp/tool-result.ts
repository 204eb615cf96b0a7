import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toWireJson, type DefaultValues, type Interrupt } from "@agent-server/core";
import { defaultReply, type RunEnd } from "@agent-server/engine";

/** `_meta` keys of a call (request) and of its result: the thread the run used, the value to resume an interrupt with. */
export const THREAD_ID_META = "langgraph/thread_id";
export const RUN_ID_META = "langgraph/run_id";
export const RESUME_META = "langgraph/resume";

/** A graph's error message is cut at this length in the tool error, as in A2A task failures. */
const MAX_FAILURE_MESSAGE = 500;

/** How one tool call's run ended, for the result. */
export interface CallOutcome {
  toolName: string;
  assistantId: string;
  threadId: string;
  runId: string;
  end: RunEnd;
  /** The run's final state values (the thread's, when the run produced none). */
  values: DefaultValues | null;
  /** Set when the thread waits: the pending interrupts (`[]` at a static breakpoint). */
  interrupts?: Interrupt[] | undefined;
}

/**
 * The tool result of a run, by how it ended:
 * - `success`: the reply as text — the last AI message's text (`defaultReply`, as A2A answers), else the
 *   values as JSON — and `structuredContent` `{ thread_id, run_id, values }` (values as the HTTP API
 *   serializes them);
 * - `success` with the thread waiting at `interrupt()` (or a breakpoint): not an error; the text says
 *   so with the thread id, the interrupt values and how to resume, and `structuredContent` also has
 *   `interrupts`;
 * - `error`, `timeout`, `interrupted` (cancelled): a tool error (`isError: true`) saying what failed.
 * Every result's `_meta` names the thread and the run, so a client can continue on the thread.
 */
export function toolResult(outcome: CallOutcome): CallToolResult {
  const _meta = { [THREAD_ID_META]: outcome.threadId, [RUN_ID_META]: outcome.runId };
  const { end } = outcome;
  if (end.status !== "success") return { ...toolError(failureText(end)), _meta };
  const values = (toWireJson(outcome.values ?? {}) ?? {}) as Record<string, unknown>;
  const structured: Record<string, unknown> = { thread_id: outcome.threadId, run_id: outcome.runId, values };
  if (outcome.interrupts !== undefined) {
    const interrupts = toWireJson(outcome.interrupts) as Interrupt[];
    structured.interrupts = interrupts;
    return { content: [{ type: "text", text: interruptText(outcome, interrupts) }], structuredContent: structured, _meta };
  }
  const reply = defaultReply(outcome.values ?? {});
  const text = reply === undefined ? JSON.stringify(values) : typeof reply === "string" ? reply : JSON.stringify(reply);
  return { content: [{ type: "text", text }], structuredContent: structured, _meta };
}

/** A tool error: the call reached the server and failed; the text says why. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Why a run did not finish, in one line: the graph's own error type and message (cut), never a stack. */
export function failureText(end: Pick<RunEnd, "status" | "error">): string {
  if (end.status === "timeout") return end.error ? `The run timed out: ${end.error.message}` : "The run timed out before it finished.";
  if (end.status === "interrupted") return "The run was cancelled before it finished.";
  if (end.status !== "error") return `The run did not finish (status ${end.status}).`;
  if (!end.error) return "The run failed.";
  const { error, message } = end.error;
  const cut = message.length > MAX_FAILURE_MESSAGE ? `${message.slice(0, MAX_FAILURE_MESSAGE)}…` : message;
  return cut ? `The run failed: ${error}: ${cut}` : `The run failed: ${error}`;
}

function interruptText(outcome: CallOutcome, interrupts: Interrupt[]): string {
  const { threadId, toolName, assistantId } = outcome;
  const lines = [
    interrupts.length > 0
      ? `The run stopped at an interrupt and is waiting for input on thread ${threadId}.`
      : `The run stopped at a breakpoint on thread ${threadId}.`,
    ...interrupts.map((interrupt) => `Interrupt${interrupt.id ? ` ${interrupt.id}` : ""}: ${JSON.stringify(interrupt.value ?? null)}`),
    `To resume, call ${toolName} again with _meta {"${THREAD_ID_META}": "${threadId}", "${RESUME_META}": <your answer>}, ` +
      `or POST /threads/${threadId}/runs with {"assistant_id": "${assistantId}", "command": {"resume": <your answer>}}.`,
  ];
  return lines.join("\n");
}
