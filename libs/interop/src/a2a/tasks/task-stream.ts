import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Run, Storage } from "@agent-server/core";
import type { Engine, EngineRunKwargs, RunEventStream, StreamEvent } from "@agent-server/engine";
import { resultArtifactId, TERMINAL_TASK_STATES, textPart } from "../task-projection.js";
import { currentRun } from "./task-lineage.js";
import type { TaskRenderer } from "./task-renderer.js";

/**
 * Stream events of one run of a task (SendStreamingMessage, SubscribeToTask): the task, WORKING, then —
 * while the run executes — its LLM tokens as updates of the result artifact (when `events` carries them:
 * the run streams LangGraph's `messages` mode), then, once `end` settles, its artifacts and the final
 * status, read back from the records like GetTask. The recorded artifact is sent whole (`append: false,
 * lastChunk: true`): it replaces what the tokens built, so what a client keeps is what GetTask returns
 * later. A run that streams no tokens (or events without them) gives exactly the task, WORKING, the
 * artifact and the status. A task already terminal or waiting for input gets the task and its status,
 * and the stream ends. `events` is closed when the stream ends, also when its client leaves early (the
 * run goes on).
 */
export async function* followTask(
  storage: Storage,
  renderer: TaskRenderer,
  taskId: string,
  run: Run,
  end: Promise<unknown>,
  events?: RunEventStream,
): AsyncGenerator<StreamResponse, void, undefined> {
  const iterator = events?.[Symbol.asyncIterator]();
  // Pulled at once: a joined stream (SubscribeToTask) subscribes on its first pull, so the tokens from
  // here on are kept for this client while the task is rendered.
  const first = iterator?.next();
  // A stream that ends below without reading it must not leave a rejection unhandled.
  first?.catch(() => undefined);
  try {
    const firstRun = (await storage.runs.get(taskId)) ?? run;
    const initial = await renderer.render(firstRun, (await storage.runs.get(run.run_id)) ?? run);
    yield { payload: { $case: "task", value: initial } };
    if (TERMINAL_TASK_STATES.includes(initial.status!.state) || initial.status!.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      yield statusUpdate(initial);
      return;
    }
    yield statusUpdate({
      ...initial,
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
    });
    if (iterator && first) yield* tokenUpdates(iterator, first, { taskId, contextId: run.thread_id, artifactId: resultArtifactId(run) });
    await end.catch(() => undefined);
    // Read again: the first run object above predates the run's end.
    const settled = (await storage.runs.get(taskId)) ?? firstRun;
    const final = await renderer.render(settled, await currentRun(storage, settled));
    for (const artifact of final.artifacts) {
      yield {
        payload: {
          $case: "artifactUpdate",
          value: { taskId, contextId: final.contextId, artifact, append: false, lastChunk: true, metadata: undefined },
        },
      };
    }
    yield statusUpdate(final);
  } finally {
    events?.close();
  }
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

function statusUpdate(task: Task): StreamResponse {
  return {
    payload: { $case: "statusUpdate", value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined } },
  };
}
