import { isBaseMessage, type BaseMessageChunk } from "@langchain/core/messages";
import { isGraphDrained, type RunControl } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { Run } from "@agent-server/core";
import type { CompiledGraph } from "../graphs/types.js";
import { checkpointIdOf, checkpointMark } from "../streaming/checkpoint-marks.js";
import { SubgraphLifecycle } from "../streaming/subgraph-lifecycle.js";
import type { EmittedEvent } from "../streaming/types.js";
import { graphTracing } from "../tracing/index.js";
import { toCommand } from "./command.js";
import { LENT_CHECKPOINTER_KEY } from "./run-saver.js";
import type { TaskSpans } from "../tracing/task-spans.js";
import type { EngineRunKwargs, StreamMode } from "./run-request.js";
import {
  isCheckpointEnvelope,
  streamCheckpoint,
  streamDebugChunk,
  streamTask,
  streamToolChunk,
  type LangGraphCheckpointPayload,
  type StreamTask,
} from "./stream-payloads.js";

/**
 * Executes one run of a graph and yields its stream events as `@langchain/langgraph-sdk` parses them:
 * `metadata` first, then one event per requested mode (`mode|ns|...` for subgraph chunks), with
 * `messages/partial`, `messages/complete` and `messages/metadata` for the `messages` mode. `tools`
 * (tool-call lifecycle: `on_tool_start`, `on_tool_event`, `on_tool_end`, `on_tool_error`) is LangGraph's
 * own stream mode, passed through. `lifecycle` (`lifecycle|<ns>`: a subgraph started or ended) is the
 * server's own, with or without subgraph streaming (subgraph-lifecycle.ts). A resumable run's stream also
 * carries checkpoint marks, which are stored and never sent (checkpoint-marks.ts).
 *
 * `resume`: a later attempt of a run that had already written a checkpoint (its worker was lost). It
 * continues from the thread's latest checkpoint, as LangGraph resumes: no input (the run's input or
 * command is already in that state), and no `checkpoint_id` (that is where the first attempt started).
 * As the official server does, the graph sees the attempt as `run_attempt` in its config metadata (so
 * checkpoints carry it too) and the `metadata` event says `attempt`.
 *
 * `control`: a drain requested through it (shutdown) stops the graph at its next superstep boundary,
 * with that step's checkpoint saved; the stream then throws LangGraph's `GraphDrained`.
 */
export async function* executeGraph(run: Run, graph: CompiledGraph, options: GraphCallOptions): AsyncGenerator<EmittedEvent> {
  const kwargs = run.kwargs as EngineRunKwargs;
  const userModes = new Set<StreamMode>(kwargs.stream_mode);
  const libModes = new Set<string>([...userModes].filter((m) => m !== "events" && m !== "messages-tuple" && m !== "lifecycle"));
  if (userModes.has("messages-tuple")) libModes.add("messages");
  // The messages mode is assembled from values chunks and chat model events, as the official server does.
  if (userModes.has("messages")) {
    libModes.delete("messages");
    libModes.add("values");
  }
  if (libModes.size === 0) libModes.add("values");
  // The lifecycle mode is read off every graph's `tasks` chunks, subgraphs' included (subgraph-lifecycle.ts).
  const lifecycle = userModes.has("lifecycle") ? new SubgraphLifecycle() : undefined;
  if (lifecycle) libModes.add("tasks");
  const nested = kwargs.subgraphs || lifecycle !== undefined;

  yield { event: "metadata", data: { run_id: run.run_id, attempt: options.attempt } };

  // streamEvents attaches an event callback to every runnable the graph invokes (each node, each channel
  // write, each edge): it costs more than a small graph's own work. The `events` and `messages` modes need
  // it, and subgraph streams (where it adds LangGraph's checkpoint envelopes, which the official server
  // passes on); otherwise the graph's own stream yields the same chunks.
  const viaStreamEvents = userModes.has("events") || userModes.has("messages") || kwargs.subgraphs;
  const tracing = graphTracing(options.graphId, viaStreamEvents || libModes.has("messages"));
  // Node spans without callbacks come from the `tasks` mode, which reaches the client only if it asked.
  if (tracing?.tasks) libModes.add("tasks");
  // The run's last checkpoint, as LangGraph emits it, spares settlement reading the whole state back
  // (`finalSnapshot`). Root chunks only: subgraph streams pair values with checkpoint envelopes instead.
  const final = options.final && !viaStreamEvents && !nested ? options.final : undefined;
  if (final) libModes.add("checkpoints");
  // A resumable run's stored stream marks its root checkpoints (checkpoint-marks.ts), from LangGraph's
  // checkpoint envelopes where the stream has them (asking for full checkpoints would end those), else
  // from full checkpoints.
  const envelopes = viaStreamEvents && nested && libModes.has("values") && !libModes.has("checkpoints");
  if (kwargs.resumable && !envelopes) libModes.add("checkpoints");
  const { input, config } = graphCall(run, options, tracing?.callbacks);
  const streamConfig = { ...config, subgraphs: nested, streamMode: [...libModes] };
  const events = viaStreamEvents
    ? (graph.streamEvents(input, { ...streamConfig, version: "v2" } as never) as unknown as AsyncIterable<StreamEventV2>)
    : graphChunks(run.run_id, await graph.stream(input, streamConfig as never));
  const plan: StreamPlan = { kwargs, userModes, runId: run.run_id, taskSpans: tracing?.tasks, final, nested, lifecycle };
  let failure: unknown;
  try {
    yield* runEvents(events, plan);
  } catch (error) {
    failure = error;
    // A drained run goes on in its next attempt: its subgraphs have not ended.
    if (lifecycle && !isGraphDrained(error)) {
      yield* lifecycle.finish(options.signal.aborted ? { kind: "cancelled" } : { kind: "failed", error });
    }
    throw error;
  } finally {
    tracing?.tasks?.end(failure);
  }
  if (lifecycle) yield* lifecycle.finish({ kind: "completed" });
}

/** What `runEvents` needs to know of the run and the stream asked for. */
interface StreamPlan {
  kwargs: EngineRunKwargs;
  userModes: ReadonlySet<StreamMode>;
  runId: string;
  taskSpans: TaskSpans | undefined;
  final: FinalCheckpoint | undefined;
  /** LangGraph streams subgraph chunks: the client asked for them, or the lifecycle mode needs them. */
  nested: boolean;
  lifecycle: SubgraphLifecycle | undefined;
}

/** The events of one graph call as the client asked for them (see `executeGraph`). */
async function* runEvents(events: AsyncIterable<StreamEventV2>, plan: StreamPlan): AsyncGenerator<EmittedEvent> {
  const { kwargs, userModes, runId, taskSpans, final, lifecycle } = plan;
  const partial = new Map<string, BaseMessageChunk>();
  const completed = new Set<string>();
  // The checkpoint of the last root envelope: marked once its values chunk is out.
  let envelopeCheckpoint: string | undefined;
  for await (const event of events) {
    if (event.tags?.includes("langsmith:hidden")) continue;
    const isGraphChunk = event.event === "on_chain_stream" && (kwargs.subgraphs || event.run_id === runId);
    if (isGraphChunk) {
      const tuple = (plan.nested ? event.data.chunk : [null, ...(event.data.chunk as unknown[])]) as [string[] | null, string, unknown];
      const [ns, mode, chunk] = tuple;
      const namespace = ns ?? [];
      const root = namespace.length === 0;
      if (lifecycle) yield* lifecycle.before(namespace);
      // Subgraph chunks streamed only for the lifecycle mode (stream_subgraphs off) go no further.
      if (root || kwargs.subgraphs) {
        const name = kwargs.subgraphs && !root ? `${mode}|${namespace.join("|")}` : mode;
        if (mode === "tasks" && root) taskSpans?.observe(chunk);
        if (final && mode === "checkpoints" && root) final.last = chunk as LangGraphCheckpointPayload;
        if (mode === "messages") {
          if (userModes.has("messages-tuple")) yield { event: name, data: chunk };
        } else if (mode === "checkpoints" && isCheckpointEnvelope(chunk)) {
          // LangGraph pairs each values chunk with this envelope when subgraphs are streamed; the official
          // server passes it on as a `checkpoints` event unless full checkpoints were asked for.
          if (!userModes.has("checkpoints") && kwargs.subgraphs) yield { event: name, data: chunk };
        } else if (userModes.has(mode as StreamMode)) {
          yield { event: name, data: streamPayload(mode, chunk) };
        }
        if (userModes.has("messages") && mode === "values") {
          const fresh = newMessages(chunk, completed);
          if (fresh.length > 0) yield { event: "messages/complete", data: fresh };
        }
      }
      if (lifecycle) yield* lifecycle.after(namespace, mode, chunk);
      if (kwargs.resumable && root) {
        if (mode === "checkpoints" && isCheckpointEnvelope(chunk)) envelopeCheckpoint = (chunk as { id: string }).id;
        else if (mode === "checkpoints") {
          const id = checkpointIdOf(chunk);
          if (id !== undefined) yield checkpointMark(id);
        } else if (mode === "values" && envelopeCheckpoint !== undefined) {
          yield checkpointMark(envelopeCheckpoint);
          envelopeCheckpoint = undefined;
        }
      }
    } else if (userModes.has("events")) {
      yield { event: "events", data: event };
    }
    if (userModes.has("messages") && event.event === "on_chat_model_stream" && !event.tags?.includes("nostream")) {
      const chunk = event.data.chunk as BaseMessageChunk;
      if (!chunk?.id) continue;
      const previous = partial.get(chunk.id);
      if (!previous) yield { event: "messages/metadata", data: { [chunk.id]: { metadata: event.metadata } } };
      const merged = previous ? previous.concat(chunk) : chunk;
      partial.set(chunk.id, merged);
      yield { event: "messages/partial", data: [merged] };
    }
  }
}

/** Where `executeGraph` leaves the last root checkpoint LangGraph emitted during the run. */
export interface FinalCheckpoint {
  last?: LangGraphCheckpointPayload;
}

export interface GraphCallOptions {
  attempt: number;
  /** Filled with the run's last checkpoint when the call streams root checkpoints (see `finalSnapshot`). */
  final?: FinalCheckpoint;
  signal: AbortSignal;
  /** The graph's id in the registry: which graphs call models is remembered per graph (tracing). */
  graphId?: string;
  resume?: boolean;
  control?: RunControl;
  /** A saver to lend the graph instead of its own (`runSaver`). */
  saver?: BaseCheckpointSaver;
}

/**
 * What a run hands its graph: the input (a `Command` for a command) and the config of the call. A resumed
 * attempt continues from the thread's latest checkpoint, as LangGraph resumes: no input (the run's input
 * or command is already in that state), and no `checkpoint_id` (that is where the first attempt started).
 */
export function graphCall(
  run: Run,
  options: GraphCallOptions,
  callbacks?: readonly unknown[],
): { input: unknown; config: Record<string, unknown> } {
  const kwargs = run.kwargs as EngineRunKwargs;
  let input = kwargs.command != null ? toCommand(kwargs.command) : (kwargs.input ?? null);
  let configurable = kwargs.config.configurable;
  if (options.resume) {
    input = null;
    const { checkpoint_id: _startedAt, ...rest } = configurable ?? {};
    configurable = rest;
  }
  if (options.saver) configurable = { ...configurable, [LENT_CHECKPOINTER_KEY]: options.saver };
  return {
    input,
    config: {
      configurable,
      tags: kwargs.config.tags,
      recursionLimit: kwargs.config.recursion_limit,
      metadata: { ...kwargs.config.metadata, run_attempt: options.attempt },
      context: kwargs.context,
      interruptBefore: kwargs.interrupt_before,
      interruptAfter: kwargs.interrupt_after,
      runId: run.run_id,
      signal: options.signal,
      control: options.control,
      ...(callbacks ? { callbacks } : {}),
    },
  };
}

/** The graph's own stream, shaped as the root graph's `on_chain_stream` events of `streamEvents`. */
async function* graphChunks(runId: string, chunks: AsyncIterable<unknown>): AsyncGenerator<StreamEventV2> {
  for await (const chunk of chunks) yield { event: "on_chain_stream", run_id: runId, data: { chunk } };
}

/** Checkpoints and tasks carry checkpoint coordinates on the wire, tool errors a message (see stream-payloads.ts). */
function streamPayload(mode: string, chunk: unknown): unknown {
  if (mode === "debug") return streamDebugChunk(chunk);
  if (mode === "checkpoints") return streamCheckpoint(chunk as LangGraphCheckpointPayload);
  if (mode === "tasks") return streamTask(chunk as StreamTask);
  if (mode === "tools") return streamToolChunk(chunk);
  return chunk;
}

interface StreamEventV2 {
  event: string;
  run_id: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  data: { chunk?: unknown; [key: string]: unknown };
}

function newMessages(chunk: unknown, completed: Set<string>): unknown[] {
  if (chunk == null || typeof chunk !== "object" || isBaseMessage(chunk)) return [];
  const value = (chunk as { messages?: unknown }).messages;
  const list = Array.isArray(value) ? value : value != null ? [value] : [];
  const fresh: unknown[] = [];
  for (const message of list) {
    const id = (message as { id?: string })?.id;
    if (!id || completed.has(id)) continue;
    completed.add(id);
    fresh.push(message);
  }
  return fresh;
}
