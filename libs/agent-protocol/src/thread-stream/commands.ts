import { HTTPException } from "hono/http-exception";
import { agentGetTree, namespaceStatuses } from "./agent-tree.js";
import { errorEnvelope, failure, ProtocolError, success, type CommandResponse, type ProtocolCommand } from "./envelopes.js";
import { parseParams, ReconnectParams, UnsubscribeParams } from "./params.js";
import { inputInject, inputRespond, runStart, stateFork } from "./run-commands.js";
import { filterMatches, parseFilter, subscriptionFilter, subscriptionId, type EventFilter } from "./subscriptions.js";
import { listCheckpoints, readableOrUnborn, readableThread, stateGet, type CommandCaller } from "./thread-reads.js";

/**
 * Where subscriptions live. Over SSE a subscription is the `POST .../stream/events` request itself, so
 * these commands only check and describe (the HTTP host); over a WebSocket they add and remove the
 * socket's subscriptions and send their events (the socket's host).
 */
export interface SubscriptionHost {
  subscribe(id: string, filter: EventFilter): Promise<{ replayed: number }>;
  unsubscribe(id: string): boolean;
  /** Restores subscriptions by id and sends what they missed after `after` (a seq); returns how many. */
  restore(subscriptions: Array<{ id: string; filter: EventFilter }>, after: number | undefined): Promise<number>;
}

/**
 * Commands that start a run. Their answer's `meta.applied_through_seq` is the thread's latest event seq
 * when the command was applied: the SDK treats events up to it as replayed history (interrupts it may
 * already have answered) and later ones as the new run's.
 */
const RUN_STARTERS = new Set(["run.start", "input.respond", "input.inject", "state.fork"]);

/**
 * Runs one protocol command on a thread and answers it. Errors become error envelopes, except, with
 * `authAsHttp` (the HTTP transport), an auth handler's refusal, which stays the HTTP error it is (401,
 * 403), as on the official server and every other route; over a WebSocket it is `permission_denied`.
 */
export async function handleCommand(
  caller: CommandCaller,
  threadId: string,
  command: ProtocolCommand,
  host: SubscriptionHost,
  options: { authAsHttp?: boolean } = {},
): Promise<CommandResponse> {
  try {
    // Read before the command's run can append anything: what a client holds up to here is history.
    const through = RUN_STARTERS.has(command.method) ? await caller.deps.engine.threadEvents.lastSeq(threadId) : undefined;
    const result = await dispatch(caller, threadId, command, host);
    return success(command.id, result, { thread_id: threadId, ...(through !== undefined ? { applied_through_seq: through } : {}) });
  } catch (error) {
    if (options.authAsHttp && error instanceof HTTPException && (error.status === 401 || error.status === 403)) throw error;
    return errorEnvelope(command.id, error);
  }
}

async function dispatch(
  caller: CommandCaller,
  threadId: string,
  command: ProtocolCommand,
  host: SubscriptionHost,
): Promise<Record<string, unknown>> {
  const { method, params } = command;
  switch (method) {
    case "run.start":
      return runStart(caller, threadId, params);
    case "input.respond":
      return inputRespond(caller, threadId, params);
    case "input.inject":
      return inputInject(caller, threadId, params);
    case "state.get":
      return stateGet(caller, threadId, params);
    case "state.listCheckpoints":
      return listCheckpoints(caller, threadId, params);
    case "state.fork":
      return stateFork(caller, threadId, params);
    case "agent.getTree":
      return agentGetTree(caller, threadId, params);
    case "subscription.subscribe": {
      const filter = parseFilter(method, params);
      await readableOrUnborn(caller, threadId);
      const id = subscriptionId(filter);
      const { replayed } = await host.subscribe(id, filter);
      return { subscription_id: id, replayed_events: replayed };
    }
    case "subscription.unsubscribe": {
      const { subscription_id } = parseParams(method, UnsubscribeParams, params);
      subscriptionFilter(subscription_id);
      await readableOrUnborn(caller, threadId);
      if (!host.unsubscribe(subscription_id)) throw new ProtocolError("no_such_subscription", `Unknown subscription: ${subscription_id}`);
      return {};
    }
    case "subscription.reconnect":
      return reconnect(caller, threadId, params, host);
    default:
      // Authorized like a read, so a caller who may not see the thread learns nothing, not even this.
      await caller.auth.authorize("threads", "read", { thread_id: threadId });
      throw new ProtocolError("unknown_command", `Unknown command: ${method.slice(0, 100)}`);
  }
}

/**
 * `subscription.reconnect`: restores the named subscriptions (their ids carry their filters), sends the
 * events they missed after `last_event_id`, and says where each namespace of `run_id` stands now. Works
 * on any process and after restarts: the log is durable and nothing else is needed.
 */
async function reconnect(
  caller: CommandCaller,
  threadId: string,
  params: unknown,
  host: SubscriptionHost,
): Promise<Record<string, unknown>> {
  const { run_id, last_event_id, subscriptions } = parseParams("subscription.reconnect", ReconnectParams, params);
  await readableThread(caller, threadId);
  const after = last_event_id === undefined ? undefined : Number(last_event_id);
  if (after !== undefined && !Number.isSafeInteger(after))
    throw new ProtocolError("invalid_argument", "last_event_id must be an event_id of this thread");
  const restored = (subscriptions ?? []).map((id) => ({ id, filter: subscriptionFilter(id) }));
  const missed = await host.restore(restored, after);
  const current = run_id ? [...namespaceStatuses(await caller.deps.engine.threadEvents.list(threadId), run_id).values()] : [];
  return {
    restored: true,
    missed_events: missed,
    current_namespaces: current.map(({ namespace, status }) => ({ namespace, status })),
  };
}

/**
 * Subscriptions over plain HTTP: the events flow over `POST .../stream/events`, so a subscribe answers
 * what such a stream with this filter would replay now, and a reconnect how many events it missed.
 */
export function httpSubscriptionHost(caller: CommandCaller, threadId: string): SubscriptionHost {
  const count = async (filters: EventFilter[], after: number | undefined) => {
    const events = await caller.deps.engine.threadEvents.list(threadId, after);
    return events.filter(({ event }) => filters.some((filter) => filterMatches(event, filter))).length;
  };
  return {
    subscribe: async (_id, filter) => ({ replayed: await count([filter], undefined) }),
    unsubscribe: () => true,
    restore: (subscriptions, after) =>
      count(
        subscriptions.map((s) => s.filter),
        after,
      ),
  };
}

export { failure };
