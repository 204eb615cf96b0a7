import { randomUUID } from "node:crypto";
import { systemAssistantId } from "@agent-server/engine";
import { jsonCall } from "./http-exchange.js";

/** One user's resources, made through the API before a campaign: valid targets for the generated ids. */
export interface UserWorld {
  /** The `x-user` header; undefined on a server without auth. */
  user: string | undefined;
  assistantId: string;
  threadId: string;
  runId: string;
  checkpointId: string;
  cronId: string;
  storeNamespace: string[];
  storeKey: string;
  /** A2A task (= its first run) and context (= its thread). */
  taskId: string;
  contextId: string;
}

/**
 * The fuzz requests go out as `mine`'s user (bob); `other` (alice) is the victim whose ids the generators
 * also use. On a server without auth both are ordinary resources and there is no leak oracle.
 */
export interface World {
  auth: boolean;
  /** Loopback receiver for every webhook and push URL the generators produce. */
  sinkUrl: string;
  mine: UserWorld;
  other: UserWorld;
}

export const ATTACKER = "bob";
export const VICTIM = "alice";

/** Makes every kind of resource for `user` through the HTTP API (a finished echo run, a far-future cron, a store item, an A2A task). */
export async function seedUser(url: string, user: string | undefined): Promise<UserWorld> {
  const call = (method: string, path: string, body?: unknown) => jsonCall(url, method, path, user, body);
  const assistant = (await call("POST", "/assistants", { graph_id: "echo", name: `${user ?? "anyone"}'s echo` })) as {
    assistant_id: string;
  };
  const thread = (await call("POST", "/threads", {})) as { thread_id: string };
  await call("POST", `/threads/${thread.thread_id}/runs/wait`, {
    assistant_id: "echo",
    input: { messages: [{ role: "user", content: `secret of ${user ?? "anyone"}` }] },
  });
  const runs = (await call("GET", `/threads/${thread.thread_id}/runs`)) as { run_id: string }[];
  const state = (await call("GET", `/threads/${thread.thread_id}/state`)) as { checkpoint: { checkpoint_id: string } };
  const cron = (await call("POST", `/threads/${thread.thread_id}/runs/crons`, { assistant_id: "echo", schedule: "0 0 1 1 *" })) as {
    cron_id: string;
  };
  const storeNamespace = ["fuzz"];
  const storeKey = `key-${randomUUID()}`;
  await call("PUT", "/store/items", { namespace: storeNamespace, key: storeKey, value: { note: `secret of ${user ?? "anyone"}` } });
  const task = await sendA2AMessage(url, user);
  return {
    user,
    assistantId: assistant.assistant_id,
    threadId: thread.thread_id,
    runId: runs[0]!.run_id,
    checkpointId: state.checkpoint.checkpoint_id,
    cronId: cron.cron_id,
    storeNamespace,
    storeKey,
    taskId: task.taskId,
    contextId: task.contextId,
  };
}

async function sendA2AMessage(url: string, user: string | undefined): Promise<{ taskId: string; contextId: string }> {
  const headers: Record<string, string> = { "content-type": "application/json", "A2A-Version": "1.0" };
  if (user) headers["x-user"] = user;
  const answer = await fetch(new URL("/a2a/echo", url), {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] }, configuration: { blocking: true } },
    }),
  });
  const envelope = (await answer.json()) as { result?: { task?: { id: string; contextId: string } }; error?: unknown };
  const task = envelope.result?.task;
  if (!task) throw new Error(`A2A SendMessage as ${user}: ${JSON.stringify(envelope).slice(0, 300)}`);
  return { taskId: task.id, contextId: task.contextId };
}

/** The example graphs' system assistants, created again when a batch deleted them (open to anyone without auth). */
export async function ensureSystemAssistants(url: string, user: string | undefined): Promise<void> {
  for (const graph of ["echo", "approval"]) {
    const assistantId = systemAssistantId(graph);
    const answer = await fetch(new URL(`/assistants/${assistantId}`, url), { headers: user ? { "x-user": user } : {} });
    if (answer.status !== 404) continue;
    await jsonCall(url, "POST", "/assistants", user, {
      assistant_id: assistantId,
      graph_id: graph,
      name: graph,
      metadata: { created_by: "system" },
      if_exists: "do_nothing",
    });
  }
}

export async function seedWorld(url: string, auth: boolean, sinkUrl: string): Promise<World> {
  const [mine, other] = await Promise.all([seedUser(url, auth ? ATTACKER : undefined), seedUser(url, auth ? VICTIM : undefined)]);
  return { auth, sinkUrl, mine, other };
}

/**
 * The victim's ids that must never reach the attacker. Not the assistant (readable by all under the
 * fixture's policy) nor the store key (a name anyone may use in their own namespace; the item's content is
 * the marker there).
 */
export function secretIds(world: World): Secret[] {
  if (!world.auth) return [];
  const o = world.other;
  return [
    { name: "thread id", value: o.threadId },
    { name: "run id", value: o.runId },
    { name: "checkpoint id", value: o.checkpointId },
    { name: "cron id", value: o.cronId },
    { name: "A2A task id", value: o.taskId },
    { name: "A2A context id", value: o.contextId },
  ];
}

export interface Secret {
  name: string;
  value: string;
}

/**
 * A user's seeded rows, read straight from the SQLite file: what no other caller may change. The store item
 * is matched inside the owner's namespace (the auth handler prefixes it), since anyone may reuse the key.
 */
export function resourceQueries(world: UserWorld): Record<string, [string, ...string[]]> {
  return {
    assistant: ["SELECT * FROM assistants WHERE assistant_id = ?", world.assistantId],
    thread: ["SELECT * FROM threads WHERE thread_id = ?", world.threadId],
    runs: [
      "SELECT run_id, status, metadata, kwargs, updated_at FROM runs WHERE thread_id IN (?, ?) ORDER BY run_id",
      world.threadId,
      world.contextId,
    ],
    checkpoints: ["SELECT count(*) AS n FROM checkpoints WHERE thread_id IN (?, ?)", world.threadId, world.contextId],
    cron: ["SELECT * FROM crons WHERE cron_id = ?", world.cronId],
    store: ["SELECT * FROM store_items WHERE key = ? AND namespace LIKE ?", world.storeKey, `%${world.user ?? ""}%`],
  };
}

/** Whether every seeded row of `world` is still there (a batch may legitimately delete the attacker's own). */
export function intact(view: Record<string, unknown[]>): boolean {
  return (["assistant", "thread", "runs", "cron", "store"] as const).every((name) => (view[name]?.length ?? 0) > 0);
}
