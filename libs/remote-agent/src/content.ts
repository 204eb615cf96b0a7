import { TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import type { RemoteTaskState } from "./hooks.js";

/** A part as A2A v1.0 JSON writes it: `{ text }`, `{ data }`, `{ url, mediaType }`. */
export type JsonPart = { text: string } | { data: unknown } | { url: string; mediaType?: string; filename?: string };

/** What a remote task came to: its state and, for an answer or a question, its text and parts. */
export interface RemoteOutcome {
  state: RemoteTaskState;
  /** The answer (artifacts; else the status message) or the question (the status message). */
  text: string;
  parts: JsonPart[];
}

const STATES: Record<number, RemoteTaskState> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

export function stateName(state: TaskState | undefined): RemoteTaskState {
  return (state !== undefined && STATES[state]) || "unknown";
}

/** States where the remote waits for us (interrupted) or has finished (terminal): a wait ends there. */
export function isStopState(state: RemoteTaskState): boolean {
  return state !== "submitted" && state !== "working" && state !== "unknown";
}

export function isTerminal(state: RemoteTaskState): boolean {
  return state === "completed" || state === "failed" || state === "canceled" || state === "rejected";
}

/**
 * A task's outcome. A completed task answers with its artifacts' parts (an agent that puts its reply
 * only in the status message answers with that); other states say what their status message says.
 * Data parts count only when there is no text: an agent that sends its reply as text and its state as
 * data (as this server's A2A adapter does) answers with the reply, not with a copy of its state.
 */
export function taskOutcome(task: Task): RemoteOutcome {
  const state = stateName(task.status?.state);
  const fromArtifacts = state === "completed" ? task.artifacts.flatMap((a) => a.parts) : [];
  const parts = answerOf((fromArtifacts.length ? fromArtifacts : (task.status?.message?.parts ?? [])).map(jsonPart));
  return { state, text: textOf(parts), parts };
}

function answerOf(parts: JsonPart[]): JsonPart[] {
  const readable = parts.filter((p) => !("data" in p));
  return readable.length ? readable : parts;
}

/** A direct answer (a Message, no task): completed with its parts. */
export function messageOutcome(message: Message): RemoteOutcome {
  const parts = answerOf(message.parts.map(jsonPart));
  return { state: "completed", text: textOf(parts), parts };
}

/** Text parts as they are, data parts as JSON, file parts as their URL or name; one per line. */
export function textOf(parts: JsonPart[]): string {
  return parts
    .map((p) => ("text" in p ? p.text : "data" in p ? JSON.stringify(p.data) : (p.filename ?? p.url)))
    .filter((t) => t !== "")
    .join("\n");
}

function jsonPart(part: Part): JsonPart {
  const content = part.content;
  switch (content?.$case) {
    case "text":
      return { text: content.value };
    case "data":
      return { data: content.value };
    case "url":
      return {
        url: content.value,
        ...(part.mediaType ? { mediaType: part.mediaType } : {}),
        ...(part.filename ? { filename: part.filename } : {}),
      };
    case "raw":
      // Bytes stay with the remote: a checkpoint keeps what a conversation needs to read.
      return { text: `[file ${part.filename || "unnamed"}${part.mediaType ? `, ${part.mediaType}` : ""}]` };
    default:
      return { text: "" };
  }
}

/** LangChain message content (a string or content blocks) as A2A parts. */
export function contentParts(content: unknown): JsonPart[] {
  if (typeof content === "string") return [{ text: content }];
  if (!Array.isArray(content)) return content == null ? [] : [{ data: content }];
  return content.flatMap((block: unknown): JsonPart[] => {
    if (typeof block === "string") return [{ text: block }];
    const b = block as { type?: string; text?: string; image_url?: string | { url?: string }; url?: string; mime_type?: string };
    if (b.type === "text" && typeof b.text === "string") return [{ text: b.text }];
    const url = typeof b.image_url === "string" ? b.image_url : (b.image_url?.url ?? b.url);
    if (typeof url === "string") return [{ url, ...(b.mime_type ? { mediaType: b.mime_type } : {}) }];
    return [{ data: block }];
  });
}

/**
 * A resume value as the parts of the message that answers the remote: a string is text; `{ text }`,
 * `{ parts }` or a LangChain content array say their parts; anything else goes as one data part.
 */
export function answerParts(value: unknown): JsonPart[] {
  if (typeof value === "string") return [{ text: value }];
  if (Array.isArray(value)) return contentParts(value);
  if (value && typeof value === "object") {
    const v = value as { text?: unknown; parts?: unknown; content?: unknown };
    if (Array.isArray(v.parts)) return v.parts as JsonPart[];
    if (typeof v.text === "string") return [{ text: v.text }];
    if (v.content !== undefined) return contentParts(v.content);
  }
  return [{ data: value ?? null }];
}
