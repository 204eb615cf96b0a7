import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { ConflictError } from "@agent-server/core";
import type { RunAuthContext } from "@agent-server/engine";
import { v5 as uuidv5 } from "uuid";
import type { A2AHandlerDeps } from "../handler-deps.js";
import type { A2ARequestScope } from "../request-scope.js";
import type { AdmittedTask } from "./admitted-task.js";
import type { TaskAccess } from "./task-access.js";
import { readRunLineage } from "./task-lineage.js";
import { joinTokenStream } from "./task-stream.js";

/**
 * The namespace of the run ids messages get (`messageRunId`). Fixed for good: under another one, a
 * message sent before the change and retried after it would make a second task.
 */
export const MESSAGE_RUN_NAMESPACE = "106ca3bf-7494-4daa-9aee-3c0fb1635e39";

/**
 * The id of the run a message makes. A client that retries a send after a lost answer (or resumes after
 * a crash) sends the same messageId again: with the same run id, the repeat meets the run the first send
 * made (every driver refuses a duplicate run id with a ConflictError) instead of making a second task.
 * The caller's identity is part of it, so one caller's messageId never names another caller's run;
 * without custom auth every caller is the same one, as everyone may see every task anyway.
 */
export function messageRunId(assistantId: string, auth: RunAuthContext | undefined, messageId: string): string {
  // JSON keeps the parts apart: ("a:b", "c") and ("a", "b:c") must not name the same run.
  return uuidv5(JSON.stringify([assistantId, auth?.user.identity ?? "", messageId]), MESSAGE_RUN_NAMESPACE);
}

/** What a message said about where it goes, to match it with the run its messageId already made. */
export interface SentMessage {
  messageId: string;
  /** "" when the message named none. */
  contextId: string;
  /** "" for a message that starts a task. */
  taskId: string;
}

/**
 * Whether an admission error may be a repeated message meeting its own run: the run id taken
 * (ConflictError), or, for a continuation, its task no longer waiting for input (-32004) or, moved on
 * since, no longer at the checkpoint it waited at (-32602). Only then is the message's run looked up.
 */
export function mayBeRepeat(error: unknown): boolean {
  return error instanceof ConflictError || error instanceof UnsupportedOperationError || error instanceof RequestMalformedError;
}

/**
 * The task a repeated message already made, answered as its first send was: its run, the promise of
 * that run's end (a blocking send waits for it; an ended run's end is read from its row) and, streaming,
 * the run's live tokens if its first send streamed them. Undefined when no A2A run of this agent has the
 * message's run id: the caller's own error stands. A run the caller may not read is a task not found;
 * one made by a message to another context or task is the client's error (-32602): a messageId names one
 * message.
 */
export async function repeatedMessage(
  deps: A2AHandlerDeps,
  access: TaskAccess,
  assistantId: string,
  runId: string,
  sent: SentMessage,
  scope: A2ARequestScope,
  stream: boolean,
): Promise<AdmittedTask | undefined> {
  const read = await readRunLineage(deps.storage, runId);
  if (!read || read.run.assistant_id !== assistantId || !read.internal.captureResult) return undefined;
  const { run, internal } = read;
  const taskId = internal.taskId ?? run.run_id;
  // As for a task the caller may not see anywhere else: indistinguishable from none.
  if (!(await access.visible(run, scope, "read")))
    throw new TaskNotFoundError(sent.taskId ? `task "${sent.taskId}" not found` : "task not found");
  if ((internal.taskId ?? "") !== sent.taskId || (sent.contextId && sent.contextId !== run.thread_id)) {
    throw new RequestMalformedError(
      `messageId "${sent.messageId}" was already used for a message to ${internal.taskId ? `task "${taskId}"` : "a new task"} ` +
        `in context "${run.thread_id}": a different message needs a new messageId`,
    );
  }
  const end = deps.engine.waitRun(run.run_id, run.thread_id);
  // Nobody may await it (a non-blocking send, a stream whose client left).
  end.catch(() => undefined);
  const events = stream ? joinTokenStream(deps.engine, run) : undefined;
  // A first run's marker lets a blocking send render its end as the first send did, without a read.
  return { taskId, run, end, ...(internal.taskId ? {} : { internal }), ...(events ? { events } : {}) };
}
