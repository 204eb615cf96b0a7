import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interrupt, isGraphInterrupt, task } from "@langchain/langgraph";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { v4 as uuidv4, v5 as uuidv5 } from "uuid";
import type { RemoteConnection } from "./connection.js";
import { answerParts, type JsonPart, type RemoteOutcome } from "./content.js";
import { RemoteAgentError } from "./errors.js";
import { reportEnded, reportUpdated, type RemoteCallInfo, type RemoteCallOutcome } from "./hooks.js";
import { awaitTask, cancelTask, sendMessage, type SentMessage } from "./remote-task.js";

/** The namespace of the message ids a node execution derives (UUID v5). */
const MESSAGE_ID_NAMESPACE = "6f7c3b52-2f4e-4b8a-9d2c-5e1a7c0b9e41";

/** How long a cancel sent after the local run ended may take. */
const CANCEL_TIMEOUT_MS = 3_000;

/** What one call sends: the parts, the remote context to continue, and what tells calls of one node apart. */
export interface CallRequest {
  parts: JsonPart[];
  contextId?: string;
  /** A tool call's id, so parallel tool calls of one node execution get their own message ids. */
  key?: string;
  /** The node or tool the call is made for (spans, metrics, the inspector). */
  node?: string;
}

/** The remote task's coordinates as a message or tool result records them: the next turn's context is read back from here. */
export interface RemoteRecord {
  /** The agent as the options name it (a path stays a path: the record outlives a port change). */
  agent: string;
  url: string;
  taskId: string;
  contextId: string;
  state: string;
}

/** What a question of the remote (input-required, auth-required) becomes: the local interrupt's value. */
export interface RemoteQuestion {
  type: "a2a.input_required" | "a2a.auth_required";
  agent: string;
  url: string;
  taskId: string;
  contextId: string;
  question: string;
  parts: JsonPart[];
  /** auth-required: the security schemes the agent's card declares, by name. */
  securitySchemes?: string[];
}

/**
 * One remote call of one node execution, durable as LangGraph makes steps durable: the send and each wait
 * are LangGraph tasks, whose results the checkpointer keeps as the node's pending writes. A later attempt
 * of the node (after a crash, a kill or a hand-back) replays what already happened from there: the send
 * is not made again, the wait re-attaches to the recorded task. Message ids are derived from the node
 * execution's task id (the same in every attempt), so a send retried after a lost answer is the same
 * message to the agent. A question of the remote becomes `interrupt()`; the resume value is the answer,
 * sent into the same remote task. Cancelling the local run (or its time limit) cancels the remote task;
 * a shutdown or a lost lease does not: the run goes on elsewhere and re-attaches.
 */
export async function durableCall(
  connection: RemoteConnection,
  request: CallRequest,
  config: LangGraphRunnableConfig | undefined,
): Promise<{ sent: SentMessage; outcome: RemoteOutcome }> {
  const signal = config?.signal;
  const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
  const base = typeof configurable.__pregel_task_id === "string" ? `${configurable.__pregel_task_id}|${request.key ?? ""}` : uuidv4();
  const messageId = (round: number) => uuidv5(`${base}|${round}`, MESSAGE_ID_NAMESPACE);
  const step = stepRunner(config);
  const info: RemoteCallInfo = {
    agent: connection.agentName(),
    url: connection.options.url,
    state: "submitted",
    ...(typeof configurable.run_id === "string" ? { runId: configurable.run_id } : {}),
    ...(typeof configurable.thread_id === "string" ? { threadId: configurable.thread_id } : {}),
    ...(request.node ? { node: request.node } : {}),
  };
  const started = Date.now();
  const span = trace.getTracer("agent-server").startSpan(`a2a.call ${info.agent}`, {
    kind: SpanKind.CLIENT,
    attributes: { "a2a.agent.url": connection.options.url, ...(info.runId ? { "agent_server.run.id": info.runId } : {}) },
  });
  const update = (state: RemoteOutcome["state"], sent?: SentMessage) => {
    Object.assign(info, { state, agent: connection.agentName() }, sent?.taskId ? { taskId: sent.taskId, contextId: sent.contextId } : {});
    span.setAttribute("a2a.task.state", state);
    reportUpdated({ ...info });
  };
  const end = (outcome: RemoteCallOutcome, error?: unknown) => {
    if (info.taskId) span.setAttributes({ "a2a.task.id": info.taskId, "a2a.context.id": info.contextId ?? "" });
    if (error !== undefined) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    span.end();
    reportEnded({ ...info }, outcome, (Date.now() - started) / 1000);
  };

  return context.with(trace.setSpan(context.active(), span), async () => {
    let sent: SentMessage | undefined;
    try {
      sent = await step("a2a.send", () =>
        sendMessage(
          connection,
          { messageId: messageId(0), parts: request.parts, ...(request.contextId ? { contextId: request.contextId } : {}) },
          signal,
        ),
      );
      update(sent.state, sent);
      // The wait's result names its task: a client following the run's updates can tell which call it ends.
      const waitFor = (sentNow: SentMessage) =>
        step("a2a.wait", async () => ({
          taskId: sentNow.taskId,
          ...(await waitCancelling(connection, sentNow.taskId, signal, (o) => update(o.state, sentNow))),
        }));
      let outcome = sent.outcome ?? (await waitFor(sent));
      for (let round = 1; outcome.state === "input-required" || outcome.state === "auth-required"; round++) {
        update(outcome.state, sent);
        const answer = interrupt(question(connection, sent, outcome));
        const reply = await step("a2a.reply", () =>
          sendMessage(
            connection,
            { messageId: messageId(round), parts: answerParts(answer), contextId: sent!.contextId, taskId: sent!.taskId },
            signal,
          ),
        );
        outcome = reply.outcome ?? (await waitFor(sent));
      }
      update(outcome.state, sent);
      if (outcome.state !== "completed") {
        throw new RemoteAgentError(connection, `task ${sent.taskId} ended ${outcome.state}${outcome.text ? `: ${outcome.text}` : ""}`);
      }
      end("completed");
      return { sent, outcome };
    } catch (error) {
      if (isGraphInterrupt(error)) end(info.state === "auth-required" ? "auth-required" : "input-required");
      else if (signal?.aborted) end("aborted", error);
      else end(isEndState(info.state) ? info.state : "error", error);
      throw error;
    }
  });
}

function isEndState(state: string): state is "failed" | "canceled" | "rejected" {
  return state === "failed" || state === "canceled" || state === "rejected";
}

/** Steps are LangGraph tasks inside a graph run (durable); outside one (a plain call) they just run. */
function stepRunner(config: LangGraphRunnableConfig | undefined): <T>(name: string, fn: () => Promise<T>) => Promise<T> {
  const inGraph = typeof (config?.configurable as Record<string, unknown> | undefined)?.__pregel_call === "function";
  return inGraph ? (name, fn) => task(name, fn)() as Promise<Awaited<ReturnType<typeof fn>>> : (_name, fn) => fn();
}

/**
 * Waits for the task; when the local run is cancelled or times out meanwhile, sends CancelTask before
 * the abort goes on. `shutdown` (a drain handing the run back) and `lease-lost` (another process took
 * the run) leave the remote task working: the run's next attempt re-attaches to it.
 */
async function waitCancelling(
  connection: RemoteConnection,
  taskId: string,
  signal: AbortSignal | undefined,
  onState: (outcome: RemoteOutcome) => void,
): Promise<RemoteOutcome> {
  const { taskTimeoutMs } = connection.options;
  const limit = taskTimeoutMs ? AbortSignal.timeout(taskTimeoutMs) : undefined;
  const both = limit && signal ? AbortSignal.any([signal, limit]) : (limit ?? signal);
  try {
    return await awaitTask(connection, taskId, both, onState);
  } catch (error) {
    const ownLimit = limit?.aborted && !signal?.aborted;
    if (ownLimit || (signal?.aborted && endsLocalRun(signal.reason))) {
      const cancelled = await cancelTask(connection, taskId, CANCEL_TIMEOUT_MS);
      if (ownLimit) {
        const how = cancelled instanceof Error ? `cancelling it failed: ${cancelled.message}` : `it was cancelled (${cancelled.state})`;
        throw new RemoteAgentError(connection, `task ${taskId} did not stop within ${taskTimeoutMs} ms; ${how}`);
      }
    }
    throw error;
  }
}

/** The abort reasons that end the local run (a cancel, a rollback, its time limit) rather than move it. */
function endsLocalRun(reason: unknown): boolean {
  if (reason === "shutdown" || reason === "lease-lost") return false;
  if (reason === "interrupt" || reason === "rollback") return true;
  return (reason as { name?: unknown } | undefined)?.name === "TimeoutError";
}

function question(connection: RemoteConnection, sent: SentMessage, outcome: RemoteOutcome): RemoteQuestion {
  const auth = outcome.state === "auth-required";
  const schemes = Object.keys(connection.card()?.securitySchemes ?? {});
  return {
    type: auth ? "a2a.auth_required" : "a2a.input_required",
    agent: connection.agentName(),
    url: sent.url,
    taskId: sent.taskId,
    contextId: sent.contextId,
    question: outcome.text,
    parts: outcome.parts,
    ...(auth ? { securitySchemes: schemes } : {}),
  };
}
