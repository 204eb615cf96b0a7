import {
  RUN_ERROR_MESSAGE_MAX,
  toWireJson,
  WireSerializationError,
  type Run,
  type RunError,
  type RunSettlement,
  type RunStatus,
  type ThreadStatus,
} from "@agent-server/core";
import { isUnknownInterruptError } from "./unknown-interrupt.js";
import type { ThreadSnapshot } from "./outcome.js";
import type { RunEnd } from "./waiters.js";

/** Values settlement writes: a run's error as the API and the run keep it, the thread's update after a run. */

export function errorPayload(error: unknown): { error: string; message: string } {
  if (error instanceof WireSerializationError) return { error: "SerializationError", message: error.message };
  if (error instanceof Error) return { error: error.name, message: error.message };
  return { error: "Error", message: JSON.stringify(toWireJson(error ?? null)) };
}

/**
 * A run's error as the run keeps it (`RunRepo.getError`): type and message, the message cut at
 * `RUN_ERROR_MESSAGE_MAX` characters (never inside a surrogate pair); never a stack.
 */
export function storedRunError(error: unknown): RunError {
  const payload = errorPayload(error);
  if (payload.message.length <= RUN_ERROR_MESSAGE_MAX) return payload;
  let end = RUN_ERROR_MESSAGE_MAX;
  const last = payload.message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { error: payload.error, message: payload.message.slice(0, end) };
}

/** What a terminal write did: the run it ended (null: a guard failed), and what it did besides. */
export interface TerminalWrite {
  won: Run | null;
  /** The thread after an update made with the write (null: the thread is gone); undefined: not updated yet. */
  thread?: RunEnd["thread"] | null;
  /** The owner's lease was cleared with the write. */
  released?: boolean;
  /** `SettledRun.pushConfigs` of the write. */
  pushConfigs?: boolean;
}

/**
 * The thread's update after a run that ended `runStatus`, as the official server sets it: `error` after
 * an error; `interrupted` when the graph stopped by itself with work left (`next` non-empty: a static
 * breakpoint or `interrupt()`), or when interrupts are pending; else `idle`. A cancelled execution leaves
 * `next` pointing at the step it was stopped in, which waits on nobody: that thread is `idle`.
 *
 * A strict resume LangGraph refused (`UnknownInterruptError`, raised before it writes anything) leaves the
 * thread as it was: waiting at its pending interrupts (or at a breakpoint: `next` non-empty) it stays
 * `interrupted`, else `idle`, and its error is not touched.
 */
export function threadUpdate(
  runStatus: RunStatus,
  snapshot: ThreadSnapshot | undefined,
  error: unknown,
  executionCompleted: boolean,
  /** The driver stores `valuesAt` (`ThreadRepo.storesValuesAt`): a pointer instead of the values. */
  pointer: boolean,
): NonNullable<RunSettlement["thread"]> {
  const pending = snapshot !== undefined && Object.keys(snapshot.interrupts).length > 0;
  if (runStatus === "error" && isUnknownInterruptError(error)) {
    const waiting = pending || (snapshot !== undefined && snapshot.next.length > 0);
    return {
      status: waiting ? "interrupted" : "idle",
      ...(snapshot ? { ...threadValues(snapshot, pointer), interrupts: snapshot.interrupts } : {}),
    };
  }
  const stoppedEarly = executionCompleted && snapshot !== undefined && snapshot.next.length > 0;
  const status: ThreadStatus =
    runStatus === "error" || runStatus === "timeout" ? "error" : pending || stoppedEarly ? "interrupted" : "idle";
  return {
    status,
    ...(snapshot ? { ...threadValues(snapshot, pointer), interrupts: snapshot.interrupts } : {}),
    error: error === undefined ? null : errorPayload(error),
  };
}

/**
 * The thread's values as settlement writes them: a pointer to the checkpoint the snapshot was taken at
 * when there is one (core's rules/thread-values.ts), so a turn does not copy the whole state into the
 * thread row; the values themselves otherwise, and when the checkpoint does not hold them (a graph with a
 * `DeltaChannel`, rebuilt by LangGraph only).
 */
function threadValues(snapshot: ThreadSnapshot, pointer: boolean): Pick<NonNullable<RunSettlement["thread"]>, "values" | "valuesAt"> {
  const checkpoint = snapshot.checkpoint;
  if (!checkpoint || !pointer || snapshot.valuesNotInCheckpoint) return { values: snapshot.values };
  return {
    valuesAt: { checkpoint_ns: checkpoint.checkpoint_ns, checkpoint_id: checkpoint.checkpoint_id, keys: Object.keys(snapshot.values) },
  };
}
