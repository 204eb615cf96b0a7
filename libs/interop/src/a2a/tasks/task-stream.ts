import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { TERMINAL_RUN_STATUSES, type Run, type RunInternal, type Storage } from "@agent-server/core";
import type { Engine, EngineRunKwargs, RunEnd, RunEventStream, StreamEvent } from "@agent-server/engine";
import type { AdmittedTask } from "./admitted-task.js";
import { resultArtifactId, TERMINAL_TASK_STATES, textPart } from "../task-projection.js";
import { currentRun } from "./task-lineage.js";
import type { TaskRenderer } from "./task-renderer.js";

/**
 * Stream events of one run of a task (SendStreamingMessage; SubscribeToTask follows a task across its
 * runs with the same parts, task-subscription.ts): the task, WORKING, then —
 * while the run executes — its LLM tokens as updates of the result artifact (when `events` carries them:
 * the run streams LangGraph's `messages` mode), then, once `end` settles, its artifacts and the final
 * status, read back from the records like GetTask. The recorded artifact is sent whole (`append: false,
 * lastChunk: true`): it replaces what the tokens built, so what a client keeps is what GetTask returns
 * later. A run that streams no tokens (or events without them) gives exactly the task, WORKING, the
 * artifact and the status. A task already terminal or waiting for input gets the task and its status,
 * and the stream ends. `events` is closed when the stream ends, also when its client leaves early (the
 * run goes on).
 *
 * A new task (its marker from admission, `admitted.internal`) is rendered from what admission and
 * settlement in this process hand over, as a blocking send is: its first event from the admitted row
 * (nothing recorded yet), its last from the run's end. So the events and the statements are the same
 * whether the run ends before or after the first event is sent.
 */
export async function* followTask(
  storage: Storage,
  renderer: TaskRenderer,
  admitted: AdmittedTask,
): AsyncGenerator<StreamResponse, void, undefined> {
  const { taskId, run, end, events, internal } = admitted;
  const tokens = pullTokens(events);
  try {
    const fresh = internal !== undefined && run.run_id === taskId && !TERMINAL_RUN_STATUSES.includes(run.status);
    const firstRun = fresh ? run : ((await storage.runs.get(taskId)) ?? run);
    const current = fresh || run.run_id === taskId ? firstRun : ((await storage.runs.get(run.run_id)) ?? run);
    const initial = fresh ? await renderer.render(run, run, {}, internal, null) : await renderer.render(firstRun, current);
    yield { payload: { $case: "task", value: initial } };
    if (TERMINAL_TASK_STATES.includes(initial.status!.state) || initial.status!.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      yield statusUpdate(initial);
      return;
    }
    yield* runUpdates(storage, renderer, firstRun, run, end, tokens, fresh ? internal : undefined);
  } finally {
    events?.close();
  }
}

/** A run's token stream with its first event already asked for (see `pullTokens`). */
export interface PulledTokens {
  iterator: AsyncIterator<StreamEvent>;
  first: Promise<IteratorResult<StreamEvent>>;
}

/**
 * Asks `events` for its first event at once: a joined stream (SubscribeToTask) subscribes on its first
 * pull, so the tokens from here on are kept for this client while the task is rendered.
 */
export function pullTokens(events: RunEventStream | undefined): PulledTokens | undefined {
  if (!events) return undefined;
  const iterator = events[Symbol.asyncIterator]();
  const first = iterator.next();
  // A stream that ends without reading it must not leave a rejection unhandled.
  first.catch(() => undefined);
  return { iterator, first };
}

/**
 * The events of one run of task `first` while it executes: WORKING, its LLM tokens (when `tokens`
 * carries them), then — once `end` settles — the task's recorded artifacts and its status, rendered from
 * its current run as GetTask renders it. Returns that task and the run it was rendered from (a newer
 * continuation than `run` when one was admitted meanwhile). The caller closes the token stream.
 */
export async function* runUpdates(
  storage: Storage,
  renderer: TaskRenderer,
  first: Run,
  run: Run,
  end: Promise<unknown>,
  tokens?: PulledTokens,
  /** A new task's marker: its end, when settled in this process, is rendered without reads. */
  firstInternal?: RunInternal,
): AsyncGenerator<StreamResponse, { task: Task; current: Run }, undefined> {
  const taskId = first.run_id;
  yield {
    payload: {
      $case: "statusUpdate",
      value: {
        taskId,
        contextId: run.thread_id,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      },
    },
  };
  if (tokens) yield* tokenUpdates(tokens.iterator, tokens.first, { taskId, contextId: run.thread_id, artifactId: resultArtifactId(run) });
  const ended = (await end.catch(() => undefined)) as RunEnd | undefined;
  if (firstInternal && ended?.run?.run_id === taskId) {
    const task = await renderer.render(ended.run, ended.run, {}, firstInternal, ended.result ?? null);
    yield* outcomeUpdates(task);
    return { task, current: ended.run };
  }
  // Read again: the first run object predates the run's end.
  const settled = (await storage.runs.get(taskId)) ?? first;
  const current = await currentRun(storage, settled);
  const final = await renderer.render(settled, current);
  yield* outcomeUpdates(final);
  return { task: final, current };
}

/** The task's recorded artifacts (each sent whole: `append: false, lastChunk: true`), then its status. */
export function* outcomeUpdates(task: Task): Generator<StreamResponse, void, undefined> {
  for (const artifact of task.artifacts) {
    yield {
      payload: {
        $case: "artifactUpdate",
        value: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: undefined },
      },
    };
  }
  yield statusUpdate(task);
}

/**
 * The live events of a task's current run for SubscribeToTask, from now on: only when the run was
 * admitted streaming LLM tokens (a SendStreamingMessage's run); otherwise undefined, and the subscriber
 * sees the run's end only, as before. Closing it ends the join (the run goes on). A run that has already
 * ended gives an empty stream, never a hang.
 */
export function joinTokenStream(engine: Engine, run: Run): RunEventStream | undefined {
  const modes = (run.kwargs as Partial<EngineRunKwargs>).stream_mode ?? [];
  if (!modes.includes("messages-tuple")) return undefined;
  const abort = new AbortController();
  const joined = engine.joinStream(run.run_id, { threadId: run.thread_id, signal: abort.signal });
  return { [Symbol.asyncIterator]: () => joined, close: () => abort.abort() };
}

/**
 * Artifact updates of the run's result artifact, one per LLM chunk with text, until the run's events
 * end (with the run, wherever it executes). The first is `append: false` (it starts the artifact for this
 * client), later ones `append: true`; none is the last chunk — the recorded artifact is. A new attempt
 * of the run (its worker was lost; it starts over) starts the artifact over. The tokens are a preview:
 * if the event stream fails, the stream goes on to the recorded outcome.
 */
async function* tokenUpdates(
  iterator: AsyncIterator<StreamEvent>,
  first: Promise<IteratorResult<StreamEvent>>,
  target: { taskId: string; contextId: string; artifactId: string },
): AsyncGenerator<StreamResponse, void, undefined> {
  let started = false;
  try {
    for (let next = await first; !next.done; next = await iterator.next()) {
      const event = next.value;
      if (event.event === "metadata" && Number((event.data as { attempt?: unknown } | null)?.attempt) > 1) started = false;
      const text = chunkText(event);
      if (!text) continue;
      yield {
        payload: {
          $case: "artifactUpdate",
          value: {
            taskId: target.taskId,
            contextId: target.contextId,
            artifact: {
              artifactId: target.artifactId,
              name: "result",
              description: "",
              parts: [textPart(text)],
              metadata: undefined,
              extensions: [],
            },
            append: started,
            lastChunk: false,
            metadata: undefined,
          },
        },
      };
      started = true;
    }
  } catch {
    // The token stream is best effort; the outcome comes from the records.
  }
}

/**
 * The text an event adds to the reply: for a `messages` event (LangGraph's `[message, metadata]`
 * tuple), the text of an AI message chunk — string content, or the text blocks of content given as
 * blocks. Everything else is "": tool-call chunks and other non-text content, human and tool messages,
 * and whole messages that LangGraph's messages mode sends for messages a node returned without
 * streaming them (the echo graph's reply: no token stream, so no token updates).
 */
export function chunkText(event: StreamEvent): string {
  if (event.event !== "messages" || !Array.isArray(event.data)) return "";
  const message = event.data[0] as { type?: unknown; content?: unknown; tool_call_chunks?: unknown } | null | undefined;
  // Only chunks carry `tool_call_chunks` (an AIMessageChunk always does, a whole AIMessage never).
  if (!message || (message.type !== "ai" && message.type !== "AIMessageChunk") || !Array.isArray(message.tool_call_chunks)) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: unknown; text?: unknown } | null) => (block?.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("");
}

export function statusUpdate(task: Task): StreamResponse {
  return {
    payload: { $case: "statusUpdate", value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined } },
  };
}
