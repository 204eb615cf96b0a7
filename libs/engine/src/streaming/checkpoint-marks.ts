/**
 * Where a resumable run's root checkpoints were taken, within its stored stream. A client that already
 * shows the state of one of them (the thread's head after a reload, say) joins with `checkpoint_id` and
 * `Last-Event-ID: -1`, and is sent only the events after it, not the whole run again.
 *
 * The executor stores a mark event after the chunks of each root checkpoint (after its `values` chunk:
 * that state is what the client shows). Marks are stored only: never delivered live, never signalled to
 * other processes, and taken out of every replay; they cost the stored ids of the events they sit between
 * nothing but a gap, which clients never rely on.
 */
export const CHECKPOINT_MARK = "__checkpoint__";

export interface CheckpointMark {
  event: typeof CHECKPOINT_MARK;
  data: { checkpoint_id: string };
}

export function checkpointMark(checkpointId: string): CheckpointMark {
  return { event: CHECKPOINT_MARK, data: { checkpoint_id: checkpointId } };
}

export function isCheckpointMark(event: { event: string }): boolean {
  return event.event === CHECKPOINT_MARK;
}

/**
 * The stored events a replay sends: those after the mark of `checkpointId` when it is one of the run's
 * checkpoints (still led by the run's `metadata`, which every stream starts with), else all of them (the
 * checkpoint is older than the run, or unknown); never the marks.
 */
export function eventsAfterCheckpoint<T extends { event: string; data: unknown }>(stored: T[], checkpointId?: string): T[] {
  const mark =
    checkpointId === undefined
      ? -1
      : stored.findIndex((e) => isCheckpointMark(e) && (e.data as { checkpoint_id?: unknown } | null)?.checkpoint_id === checkpointId);
  return stored.filter((e, index) => !isCheckpointMark(e) && (index > mark || e.event === "metadata"));
}

/** The checkpoint id of a full checkpoint payload (LangGraph's `checkpoints` mode), if it has one. */
export function checkpointIdOf(payload: unknown): string | undefined {
  const config = (payload as { config?: { configurable?: { checkpoint_id?: unknown } } } | null)?.config;
  const id = config?.configurable?.checkpoint_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}
