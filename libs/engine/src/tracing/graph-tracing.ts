import { activeContext, activeSpanRecording } from "@agent-server/core";
import { TracingCallbackHandler } from "./graph-callbacks.js";
import { TaskSpans } from "./task-spans.js";

/**
 * How one sampled run's graph is traced:
 * - `callbacks`: LangChain callbacks, which see nodes, chat models and tools (`node`, `chat`,
 *   `execute_tool` spans), but make LangChain build a callback manager for every runnable the graph
 *   invokes (each node, channel write and edge): on a small graph that costs more than the graph's work.
 * - `tasks`: LangGraph's `tasks` stream mode, which sees the root graph's nodes only, at almost no cost.
 */
export type GraphTracing = { callbacks: TracingCallbackHandler[]; tasks?: undefined } | { tasks: TaskSpans; callbacks?: undefined };

/** A graph not yet seen calling a model or a tool is traced with callbacks on one run in this many. */
export const CALLBACK_PROBE_EVERY = 20;

/** Graphs seen calling a chat model, an LLM or a tool: callbacks on every run from then on. */
const modelCallers = new Set<string>();
/** Sampled runs of other graphs since their last callback probe. One entry per graph id: bounded by the registry. */
const sinceProbe = new Map<string, number>();

/**
 * The tracing of a graph call under the active context, or undefined when its span is not sampled.
 * Callbacks when the run engages LangChain's callbacks anyway (`callbacksEngaged`: streamEvents, the
 * `messages` mode), when the graph has been seen calling a model or tool, and on a probe run (a graph's
 * first sampled run in this process, then one in `CALLBACK_PROBE_EVERY`) that finds out; the `tasks`
 * stream otherwise. So a graph that calls models has its model spans from its first run on, and one that
 * does not (a router, an echo, plain code) does not pay for what it would never show.
 */
export function graphTracing(graphId: string | undefined, callbacksEngaged: boolean): GraphTracing | undefined {
  if (!activeSpanRecording()) return undefined;
  const root = activeContext();
  if (graphId === undefined) return { callbacks: [new TracingCallbackHandler(root)] };
  if (callbacksEngaged || modelCallers.has(graphId) || probe(graphId)) {
    return { callbacks: [new TracingCallbackHandler(root, () => modelCallers.add(graphId))] };
  }
  return { tasks: new TaskSpans(root) };
}

function probe(graphId: string): boolean {
  const runs = sinceProbe.get(graphId) ?? 0;
  sinceProbe.set(graphId, (runs + 1) % CALLBACK_PROBE_EVERY);
  return runs === 0;
}
