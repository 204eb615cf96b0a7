import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotation, interrupt, StateGraph } from "@langchain/langgraph";
import { SendMessageRequest, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { collect, eventually } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { clientAs, errorCode, messageRequest } from "../../../test/support/a2a-clients.js";
import { ownerAuth } from "../../../test/support/owner-auth.js";

/**
 * SendMessage is idempotent on the message's messageId: a client that sends a message again (a retry
 * after a lost answer, a caller resuming after a crash) gets the task the first send made, not a second
 * run — blocking, non-blocking, streaming, two sends at once, continuations of an input-required task —
 * per caller; the same messageId sent to another context or task is the client's error (-32602). Over
 * real HTTP with the official client, on every driver.
 */

const TwiceState = Annotation.Root({ answers: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });

/** Asks twice: a task that waits for input again after its first continuation. */
const askTwiceGraph = new StateGraph(TwiceState)
  .addNode("first", () => ({ answers: [String(interrupt({ question: "first?" }))] }))
  .addNode("second", () => ({ answers: [String(interrupt({ question: "second?" }))] }))
  .addEdge("__start__", "first")
  .addEdge("first", "second")
  .compile();

async function sent(client: A2AClient, request: SendMessageRequest): Promise<Task> {
  const result = await client.sendMessage(request);
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/**
 * The same message (same messageId) sent again, decoded anew from its JSON as a client's retry sends
 * it; `changes` make it another message under that messageId, or drop the configuration.
 */
function again(
  request: SendMessageRequest,
  changes: { message?: Record<string, unknown>; configuration?: undefined } = {},
): SendMessageRequest {
  const json = SendMessageRequest.toJSON(request) as { message: Record<string, unknown> };
  return SendMessageRequest.fromJSON({ ...json, ...changes, message: { ...json.message, ...changes.message } });
}

function state(task: Task): TaskState | undefined {
  return task.status?.state;
}

describe.each(drivers)("A2A SendMessage idempotent on messageId ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let storage: Storage;
  let base: string;
  const clients: Record<string, A2AClient> = {};
  const client = async (assistant: string, binding: "JSONRPC" | "HTTP+JSON" = "JSONRPC"): Promise<A2AClient> =>
    (clients[`${assistant} ${binding}`] ??= await clientAs(base, "anyone", binding, assistant));
  const runsOf = (threadId: string) => storage.runs.search({ thread_id: threadId, limit: 100 });

  beforeAll(async () => {
    opened = await driver.open();
    storage = opened.storage;
    server = await startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
    server.engine.registry.register("ask-twice", askTwiceGraph);
    await server.engine.registry.ensureSystemAssistants(storage);
    base = server.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    await server?.close();
    await opened?.dispose();
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("a blocking message sent twice answers one task, with its artifact (%s)", async (binding) => {
    const echo = await client("echo", binding);
    const request = messageRequest([{ text: "once" }]);
    const threads = await storage.threads.count({});
    const first = await sent(echo, request);
    expect(state(first)).toBe(TaskState.TASK_STATE_COMPLETED);
    const second = await sent(echo, again(request));
    expect(second.id).toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect(state(second)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(second.artifacts).toEqual(first.artifacts);
    expect(second.artifacts.length).toBeGreaterThan(0);
    expect(await runsOf(first.contextId)).toHaveLength(1);
    // The thread the repeat made for itself (it named no context) is gone again.
    await eventually(async () => (await storage.threads.count({})) === threads + 1);
  });

  it("a streamed message sent again streams the task its first send made", async () => {
    const echo = await client("echo");
    const request = messageRequest([{ text: "streamed once" }]);
    const first = await collect(echo.sendMessageStream(request));
    const task = (first[0]!.payload as { value: Task }).value;
    const repeat = await collect(echo.sendMessageStream(again(request)));
    const shown = (repeat[0]!.payload as { value: Task }).value;
    expect(shown.id).toBe(task.id);
    expect(state(shown)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(shown.artifacts).toEqual((await echo.getTask({ tenant: "", id: task.id })).artifacts);
    const last = repeat.at(-1)!.payload as Extract<StreamResponse["payload"], { $case: "statusUpdate" }>;
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await runsOf(task.contextId)).toHaveLength(1);
  });

  it("a non-blocking message sent again while its run works answers the same task", async () => {
    const slow = await client("slow");
    const request = messageRequest([{ data: { delayMs: 300 } }], { returnImmediately: true });
    const first = await sent(slow, request);
    const second = await sent(slow, again(request));
    expect(second.id).toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(state(second));
    // A blocking repeat waits for that run's end, as the first send would have.
    const blocking = await sent(slow, again(request, { configuration: undefined }));
    expect(blocking.id).toBe(first.id);
    expect(state(blocking)).toBe(TaskState.TASK_STATE_COMPLETED);
    const runs = await runsOf(first.contextId);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("success");
  });

  it("identical messages sent at once make one task, with or without a context", async () => {
    const echo = await client("echo");
    const threads = await storage.threads.count({});
    const request = messageRequest([{ text: "racing" }]);
    const answers = await Promise.all([0, 1, 2, 3].map(() => sent(echo, again(request))));
    expect(new Set(answers.map((t) => t.id)).size).toBe(1);
    expect(new Set(answers.map((t) => t.contextId)).size).toBe(1);
    for (const answer of answers) {
      expect(state(answer)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(answer.artifacts).toEqual(answers[0]!.artifacts);
    }
    expect(await runsOf(answers[0]!.contextId)).toHaveLength(1);
    await eventually(async () => (await storage.threads.count({})) === threads + 1);

    // In an existing context: one run more there, whichever send inserted it.
    const context = answers[0]!.contextId;
    const inContext = messageRequest([{ text: "racing in context" }], { contextId: context });
    const inside = await Promise.all([0, 1, 2].map(() => sent(echo, again(inContext))));
    expect(new Set(inside.map((t) => t.id)).size).toBe(1);
    expect(inside[0]!.contextId).toBe(context);
    expect(await runsOf(context)).toHaveLength(2);
  });

  it("identical messages sent at once to two servers over one database make one task, and resume it once", async () => {
    const other = await startTestServer(await opened.connect(), { app: { extraRoutes: [a2aRoutes] } });
    try {
      const here = await client("approval");
      const there = await clientAs(other.url.replace(/\/$/, ""), "anyone", "HTTP+JSON", "approval");
      const request = messageRequest([{ data: { request: "both" } }]);
      const [a, b] = await Promise.all([sent(here, again(request)), sent(there, again(request))]);
      expect(b.id).toBe(a.id);
      expect(state(a)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(state(b)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(await runsOf(a.contextId)).toHaveLength(1);
      const answer = messageRequest([{ text: "yes" }], { taskId: a.id });
      const [x, y] = await Promise.all([sent(here, again(answer)), sent(there, again(answer))]);
      expect([x.id, y.id]).toEqual([a.id, a.id]);
      expect([state(x), state(y)]).toEqual([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_COMPLETED]);
      expect(await storage.runs.listContinuations(a.id)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it("a continuation sent twice resumes its task once; the repeat answers the same task", async () => {
    const approval = await client("approval");
    const asked = await sent(approval, messageRequest([{ data: { request: "deploy" } }]));
    expect(state(asked)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answer = messageRequest([{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId });
    const done = await sent(approval, answer);
    expect(done.id).toBe(asked.id);
    expect(state(done)).toBe(TaskState.TASK_STATE_COMPLETED);
    const repeat = await sent(approval, again(answer));
    expect(repeat.id).toBe(asked.id);
    expect(state(repeat)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(repeat.artifacts).toEqual(done.artifacts);
    expect(await storage.runs.listContinuations(asked.id)).toHaveLength(1);
    expect(await runsOf(asked.contextId)).toHaveLength(2);

    // Sent twice at once: one continuation, both answered with the completed task.
    const other = await sent(approval, messageRequest([{ data: { request: "rollout" } }]));
    const both = messageRequest([{ text: "no" }], { taskId: other.id });
    const answers = await Promise.all([sent(approval, again(both)), sent(approval, again(both))]);
    for (const a of answers) {
      expect(a.id).toBe(other.id);
      expect(state(a)).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    expect(await storage.runs.listContinuations(other.id)).toHaveLength(1);
  });

  it("a continuation sent again once its task waits again answers its run, not a new one", async () => {
    const twice = await client("ask-twice");
    const asked = await sent(twice, messageRequest([{ text: "start" }]));
    expect(state(asked)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answer = messageRequest([{ text: "one" }], { taskId: asked.id });
    const waiting = await sent(twice, answer);
    expect(state(waiting)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // The task waits again, at the second question: the repeat is not taken as the answer to it.
    const repeat = await sent(twice, again(answer));
    expect(repeat.id).toBe(asked.id);
    expect(state(repeat)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(JSON.stringify(repeat.status?.message?.parts)).toContain("second?");
    expect(await storage.runs.listContinuations(asked.id)).toHaveLength(1);
    const done = await sent(twice, messageRequest([{ text: "two" }], { taskId: asked.id }));
    expect(state(done)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(done.artifacts)).toContain("two");
  });

  it("the same messageId to another context or task is the client's error (-32602), and changes nothing", async () => {
    const echo = await client("echo");
    const request = messageRequest([{ text: "here" }]);
    const task = await sent(echo, request);
    const elsewhere = await sent(echo, messageRequest([{ text: "elsewhere" }]));
    const toOther = again(request, { message: { contextId: elsewhere.contextId } });
    await expect(echo.sendMessage(toOther)).rejects.toThrow(request.message!.messageId);
    expect(await errorCode(echo.sendMessage(again(toOther)))).toBe(-32602);
    expect(await runsOf(elsewhere.contextId)).toHaveLength(1);

    // As the continuation of a task waiting for input (same agent): that task still waits.
    const approval = await client("approval");
    const asked = await sent(approval, messageRequest([{ data: { request: "first" } }]));
    const reused = messageRequest([{ data: { request: "second" } }]);
    await sent(approval, reused);
    const asContinuation = again(reused, { message: { taskId: asked.id, parts: [{ text: "yes" }] } });
    expect(await errorCode(approval.sendMessage(asContinuation))).toBe(-32602);
    expect(state(await approval.getTask({ tenant: "", id: asked.id }))).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(await storage.runs.listContinuations(asked.id)).toHaveLength(0);
    // The first send's task is untouched, and sending it as it was still answers it.
    expect((await sent(echo, again(request))).id).toBe(task.id);
  });
});

describe.each(drivers)("A2A SendMessage idempotency is per caller ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    opened = await driver.open();
    server = await startTestServer(opened.storage, { app: { auth: ownerAuth, extraRoutes: [a2aRoutes] } });
    base = server.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    await server?.close();
    await opened?.dispose();
  });

  it("another caller's message with the same messageId makes its own task", async () => {
    const alice = await clientAs(base, "alice", "JSONRPC");
    const bob = await clientAs(base, "bob", "JSONRPC");
    const request = messageRequest([{ text: "same id" }]);
    const hers = await sent(alice, request);
    const his = await sent(bob, again(request));
    expect(his.id).not.toBe(hers.id);
    expect(his.contextId).not.toBe(hers.contextId);
    expect(state(his)).toBe(TaskState.TASK_STATE_COMPLETED);
    // Each one's repeat answers their own task, and neither sees the other's.
    expect((await sent(alice, again(request))).id).toBe(hers.id);
    expect((await sent(bob, again(request))).id).toBe(his.id);
    await expect(bob.getTask({ tenant: "", id: hers.id })).rejects.toThrow(/not found/i);
    expect(await opened.storage.runs.search({ thread_id: hers.contextId, limit: 10 })).toHaveLength(1);
    expect(await opened.storage.runs.search({ thread_id: his.contextId, limit: 10 })).toHaveLength(1);
  });
});
