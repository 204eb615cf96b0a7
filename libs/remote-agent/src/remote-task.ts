import { SendMessageRequest, type Task } from "@a2a-js/sdk";
import { isStopState, messageOutcome, stateName, taskOutcome, type JsonPart, type RemoteOutcome } from "./content.js";
import type { RemoteConnection } from "./connection.js";
import type { RemoteTaskState } from "./hooks.js";
import { RemoteAgentError, describeError, isTaskGone, isTransient, isUnsupported } from "./errors.js";

/** The durable record of a message sent: what a later attempt needs to find its task again. */
export interface SentMessage {
  /** The agent's name (the options', else its card's). */
  agent: string;
  url: string;
  messageId: string;
  /** Empty when the agent answered with a message instead of a task. */
  taskId: string;
  contextId: string;
  /** The task's state as the send's answer had it. */
  state: RemoteTaskState;
  /** Set when the answer to the send already ended the wait (a direct message, or a task already stopped). */
  outcome?: RemoteOutcome;
}

export interface Outgoing {
  messageId: string;
  parts: JsonPart[];
  contextId?: string;
  taskId?: string;
}

/**
 * Sends one message, without waiting for its task: `returnImmediately`, so the task's id is known (and
 * recorded by the caller) before any waiting starts. A remote that cannot be reached is tried again with
 * the same `messageId` (an agent that keeps message ids answers the task it already made) until it
 * answers or `maxUnreachableMs` passes.
 */
export async function sendMessage(connection: RemoteConnection, outgoing: Outgoing, signal: AbortSignal | undefined): Promise<SentMessage> {
  const request = SendMessageRequest.fromJSON({
    message: {
      messageId: outgoing.messageId,
      role: "ROLE_USER",
      parts: outgoing.parts,
      ...(outgoing.contextId ? { contextId: outgoing.contextId } : {}),
      ...(outgoing.taskId ? { taskId: outgoing.taskId } : {}),
    },
    configuration: { returnImmediately: true },
  });
  const answer = await retrying(connection, "send", signal, async () => {
    const { client } = await connection.client(signal);
    return client.sendMessage(request, await connection.requestOptions("send", signal, connection.options.requestTimeoutMs));
  });
  const url = connection.url();
  const agent = connection.agentName();
  if (!("status" in answer)) {
    const outcome = messageOutcome(answer);
    const contextId = answer.contextId || outgoing.contextId || "";
    return { agent, url, messageId: outgoing.messageId, taskId: "", contextId, state: outcome.state, outcome };
  }
  const outcome = taskOutcome(answer);
  const sent = { agent, url, messageId: outgoing.messageId, taskId: answer.id, contextId: answer.contextId, state: outcome.state };
  return isStopState(outcome.state) ? { ...sent, outcome } : sent;
}

/**
 * Waits until the task stops (terminal, input-required or auth-required) and answers its outcome. It
 * follows the task's stream (SubscribeToTask) when the agent streams, reading the task once it stops;
 * otherwise, or when a stream breaks, it reads the task (GetTask) every `pollIntervalMs`. A remote that
 * goes away is waited for (backoff) as a send is; `onState` hears every state seen.
 */
export async function awaitTask(
  connection: RemoteConnection,
  taskId: string,
  signal: AbortSignal | undefined,
  onState: (outcome: RemoteOutcome) => void,
): Promise<RemoteOutcome> {
  let streams = true;
  for (;;) {
    const task = await retrying(connection, "get", signal, async () => {
      const { client } = await connection.client(signal);
      return client.getTask(
        { tenant: "", id: taskId, historyLength: 0 },
        await connection.requestOptions("get", signal, connection.options.requestTimeoutMs),
      );
    });
    const outcome = taskOutcome(task);
    onState(outcome);
    if (isStopState(outcome.state)) return outcome;
    const { card } = await connection.client(signal);
    if (streams && card.capabilities?.streaming) {
      try {
        if (await followStream(connection, task, signal, onState)) continue;
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (isTaskGone(error)) throw new RemoteAgentError(connection, `task ${taskId} is no longer known: ${describeError(error)}`);
        // Unsupported (or a stream that cannot start): reading the task will do.
        if (isUnsupported(error)) streams = false;
      }
    }
    await pause(connection.options.pollIntervalMs, signal);
  }
}

/** Follows the task's stream until it says the task stopped (true) or ends without saying so (false). */
async function followStream(
  connection: RemoteConnection,
  task: Task,
  signal: AbortSignal | undefined,
  onState: (outcome: RemoteOutcome) => void,
): Promise<boolean> {
  const { client } = await connection.client(signal);
  for await (const event of client.resubscribeTask({ tenant: "", id: task.id }, await connection.requestOptions("subscribe", signal))) {
    const payload = event.payload;
    const state =
      payload?.$case === "task"
        ? stateName(payload.value.status?.state)
        : payload?.$case === "statusUpdate"
          ? stateName(payload.value.status?.state)
          : undefined;
    if (!state) continue;
    // The full outcome (artifacts, the status message) is read by the GetTask that follows.
    if (isStopState(state)) return true;
    onState({ state, text: "", parts: [] });
  }
  return false;
}

/** Asks the agent to cancel the task; a failure is only reported (the local run ends either way). */
export async function cancelTask(connection: RemoteConnection, taskId: string, timeoutMs: number): Promise<RemoteOutcome | Error> {
  try {
    const { client } = await connection.client();
    return taskOutcome(
      await client.cancelTask(
        { tenant: "", id: taskId, metadata: undefined },
        await connection.requestOptions("cancel", undefined, timeoutMs),
      ),
    );
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * `call` until it answers. A failure that says the remote is away (connection refused or reset, 502/503/
 * 504, gRPC UNAVAILABLE, a server's storage outage) is tried again after a pause that doubles up to
 * `maxDelayMs`, for at most `maxUnreachableMs` in a row; any other failure, or an abort, ends it at once.
 */
async function retrying<T>(
  connection: RemoteConnection,
  what: string,
  signal: AbortSignal | undefined,
  call: () => Promise<T>,
): Promise<T> {
  const { initialDelayMs, maxDelayMs, maxUnreachableMs } = connection.options.retry;
  let delay = initialDelayMs;
  let awaySince: number | undefined;
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    try {
      return await call();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isTransient(error))
        throw error instanceof RemoteAgentError
          ? error
          : new RemoteAgentError(connection, `${what} failed: ${describeError(error)}`, error);
      awaySince ??= Date.now();
      const away = Date.now() - awaySince;
      if (away >= maxUnreachableMs) {
        throw new RemoteAgentError(connection, `unreachable for ${Math.round(away / 1000)} s: ${describeError(error)}`, error);
      }
      await pause(Math.min(delay, maxUnreachableMs - away), signal);
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
    };
    const abort = () => {
      done();
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}
