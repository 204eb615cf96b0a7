import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { collect, eventually } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, agentCardFor, TaskRequestHandler } from "../../index.js";
import { errorCode as rpcCode } from "../../../test/support/a2a-clients.js";

/**
 * A2A task lifecycle with the official @a2a-js/sdk client (JSON-RPC) against the real server:
 * continuation/resume (task id = first run id), stale resume, errors, cancel, ListTasks (forced cancel/
 * completion races and failed tasks: task-outcomes.test.ts).
 * Streaming and SubscribeToTask run on our request handler directly and over the wire (SSE transport).
 */

type PartJson = { text: string } | { data: Record<string, unknown> } | { url: string; mediaType?: string };

function request(
  parts: PartJson[],
  options: { contextId?: string; taskId?: string; returnImmediately?: boolean } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      contextId: options.contextId ?? "",
      taskId: options.taskId ?? "",
      parts,
    },
    ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

async function send(client: A2AClient, parts: PartJson[], options: Parameters<typeof request>[1] = {}): Promise<Task> {
  const result = await client.sendMessage(request(parts, options));
  if (!("status" in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

function texts(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

function data(task: Task): Record<string, unknown> | undefined {
  for (const a of task.artifacts)
    for (const p of a.parts) if (p.content?.$case === "data") return p.content.value as Record<string, unknown>;
  return undefined;
}

const TERMINAL = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED];

describe.each(drivers.filter((d) => d.name !== "memory"))("A2A tasks ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let storage: Storage;
  const clients: Record<string, A2AClient> = {};
  const client = async (assistant: string): Promise<A2AClient> =>
    (clients[assistant] ??= await new ClientFactory().createFromUrl(`${server.url.replace(/\/$/, "")}/a2a/${assistant}/`));

  /** Our request handler for `graph`, in-process (for the streaming generators). */
  async function handler(graph: string): Promise<TaskRequestHandler> {
    const assistant = (await storage.assistants.get(server.engine.registry.resolveAssistantId(graph)))!;
    return new TaskRequestHandler(
      { engine: server.engine, storage },
      assistant,
      agentCardFor(assistant, `${server.url}a2a/${graph}`),
      undefined,
    );
  }

  beforeAll(async () => {
    opened = await driver.open();
    storage = opened.storage;
    server = await startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
  });
  afterAll(async () => {
    await server?.close();
    await opened?.dispose();
  });

  it("blocking send, a second task in the same context, GetTask keeps each task's own result", async () => {
    const echo = await client("echo");
    const first = await send(echo, [{ text: "first" }]);
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts(first)).toEqual(["echo: first"]);
    const second = await send(echo, [{ text: "second" }], { contextId: first.contextId });
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(texts(second)).toEqual(["echo: second"]);
    const again = await echo.getTask({ tenant: "", id: first.id, historyLength: 0 });
    expect(texts(again)).toEqual(["echo: first"]);
    expect(again.history).toEqual([]);
  });

  it("history: each turn's own message and the agent's answer, in order; historyLength keeps the most recent", async () => {
    const echo = await client("echo");
    const hello = request([{ text: "hello" }]);
    const first = (await echo.sendMessage(hello)) as Task;
    expect(first.history.map((m) => [m.role, m.messageId])).toEqual([
      [1, hello.message!.messageId],
      [2, `${first.id}:reply`],
    ]);
    expect(JSON.stringify(first.history[1]!.parts)).toContain("echo: hello");

    const approval = await client("approval");
    const ask = request([{ data: { request: "ship" } }]);
    const asked = (await approval.sendMessage(ask)) as Task;
    // The pending question is the status message, not repeated in the history.
    expect(asked.history.map((m) => m.messageId)).toEqual([ask.message!.messageId]);
    const answer = request([{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId });
    await approval.sendMessage(answer);
    const read = await approval.getTask({ tenant: "", id: asked.id });
    expect(read.history.map((m) => m.messageId)).toEqual([ask.message!.messageId, `${asked.id}:interrupts`, answer.message!.messageId]);
    expect(read.history[2]!.parts[0]!.content).toEqual({ $case: "text", value: "yes" });
    expect((await approval.getTask({ tenant: "", id: asked.id, historyLength: 1 })).history.map((m) => m.messageId)).toEqual([
      answer.message!.messageId,
    ]);
    expect((await approval.getTask({ tenant: "", id: asked.id, historyLength: 0 })).history).toEqual([]);
  });

  it("cancelling an input-required task ends the wait: CANCELED, no artifacts, no further messages", async () => {
    const approval = await client("approval");
    const asked = await send(approval, [{ data: { request: "drop" } }]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = await approval.cancelTask({ tenant: "", id: asked.id, metadata: undefined });
    expect(cancelled.id).toBe(asked.id);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(cancelled.artifacts).toEqual([]);
    expect((await approval.getTask({ tenant: "", id: asked.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await rpcCode(send(approval, [{ text: "yes" }], { taskId: asked.id }))).toBe(-32004);
    expect(await rpcCode(approval.cancelTask({ tenant: "", id: asked.id, metadata: undefined }))).toBe(-32002);
    // The ending run never executed: the thread still holds the question, and the context takes new tasks.
    const runs = await storage.runs.search({ thread_id: asked.contextId, limit: 10 });
    expect(runs.map((r) => r.status)).toEqual(["interrupted", "success"]);
    const next = await send(approval, [{ data: { request: "other" } }], { contextId: asked.contextId });
    expect(next.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  it("a new message in a context whose task is still working waits its turn instead of failing", async () => {
    const slow = await client("slow");
    const busy = await send(slow, [{ data: { delayMs: 400 } }], { returnImmediately: true });
    const queued = await send(slow, [{ data: { delayMs: 5 } }], { contextId: busy.contextId });
    expect(queued.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await slow.getTask({ tenant: "", id: busy.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("data parts merge into the input object, text parts become a user message", async () => {
    const slow = await client("slow");
    const task = await send(slow, [{ data: { delayMs: 5 } }, { data: { steps: [0] } }]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(data(task)).toMatchObject({ delayMs: 5, steps: [0, 1, 2] });
  });

  it("input-required (approval) -> resume with the same taskId -> completed; GetTask renders the current run", async () => {
    const approval = await client("approval");
    const asked = await send(approval, [{ data: { request: "deploy" } }]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(JSON.stringify(asked.status?.message?.parts)).toContain("approve deploy?");

    const done = await send(approval, [{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId });
    expect(done.id).toBe(asked.id);
    expect(done.contextId).toBe(asked.contextId);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(data(done)).toMatchObject({ request: "deploy", decision: "yes" });

    const read = await approval.getTask({ tenant: "", id: asked.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(data(read)).toMatchObject({ decision: "yes" });
    // The continuation is not a task of its own.
    const listed = await approval.listTasks({
      tenant: "",
      contextId: asked.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: "",
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([asked.id]);
    // Completed now: a further message is refused (-32004), and so is cancel (-32002).
    expect(await rpcCode(send(approval, [{ text: "again" }], { taskId: asked.id }))).toBe(-32004);
    expect(await rpcCode(approval.cancelTask({ tenant: "", id: asked.id, metadata: undefined }))).toBe(-32002);
  });

  it("resume is rejected as stale after another turn moved the thread on, and after keep_latest prune", async () => {
    const approval = await client("approval");
    const a = await send(approval, [{ data: { request: "a" } }]);
    expect(a.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const b = await send(approval, [{ data: { request: "b" } }], { contextId: a.contextId });
    expect(b.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // Task a's recorded checkpoint is superseded by b's turn.
    expect(await rpcCode(send(approval, [{ text: "yes" }], { taskId: a.id }))).toBe(-32602);

    expect(await server.client.threads.prune([a.contextId], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
    // Pruned and superseded: still stale; the recorded result does not resurrect it.
    const runsBefore = (await storage.runs.search({ thread_id: a.contextId, limit: 100 })).length;
    expect(await rpcCode(send(approval, [{ text: "yes" }], { taskId: a.id }))).toBe(-32602);
    expect((await storage.runs.search({ thread_id: a.contextId, limit: 100 })).length).toBe(runsBefore);
    expect((await approval.getTask({ tenant: "", id: a.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    // b waits at the thread's current (kept) checkpoint: its resume is valid.
    const done = await send(approval, [{ data: { answer: "ok" } }], { taskId: b.id });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(data(done)).toMatchObject({ request: "b", decision: { answer: "ok" } });
  });

  it("two concurrent resumes of one task: exactly one is admitted", async () => {
    const approval = await client("approval");
    const asked = await send(approval, [{ data: { request: "twice" } }]);
    const settled = await Promise.allSettled([
      send(approval, [{ text: "one" }], { taskId: asked.id }),
      send(approval, [{ text: "two" }], { taskId: asked.id }),
    ]);
    const won = settled.filter((r): r is PromiseFulfilledResult<Task> => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    expect(won[0]!.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const lost = settled.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect([-32004, -32602]).toContain((lost.reason as { envelopeCode?: number }).envelopeCode);
    const runs = await storage.runs.search({ thread_id: asked.contextId, limit: 100 });
    expect(runs).toHaveLength(2);
  });

  it("errors: unknown task, terminal task, contextId mismatch, file parts; nothing half-created", async () => {
    const echo = await client("echo");
    const approval = await client("approval");
    expect(await rpcCode(echo.getTask({ tenant: "", id: crypto.randomUUID() }))).toBe(-32001);
    expect(await rpcCode(send(echo, [{ text: "x" }], { taskId: crypto.randomUUID() }))).toBe(-32001);

    const done = await send(echo, [{ text: "hi" }]);
    expect(await rpcCode(send(echo, [{ text: "more" }], { taskId: done.id, contextId: done.contextId }))).toBe(-32004);

    const asked = await send(approval, [{ data: { request: "r" } }]);
    const other = await send(echo, [{ text: "elsewhere" }]);
    expect(await rpcCode(send(approval, [{ text: "yes" }], { taskId: asked.id, contextId: other.contextId }))).toBe(-32602);
    // An echo task is not a task of the approval agent.
    expect(await rpcCode(approval.getTask({ tenant: "", id: done.id }))).toBe(-32001);

    const counts = async () => ({ threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 10_000 })).length });
    const before = await counts();
    expect(await rpcCode(send(echo, [{ text: "see file" }, { url: "https://example.com/a.pdf", mediaType: "application/pdf" }]))).toBe(
      -32005,
    );
    expect(await rpcCode(send(approval, [{ url: "https://example.com/a.pdf" }], { taskId: asked.id }))).toBe(-32005);
    expect(await rpcCode(send(echo, [{ text: "x" }], { contextId: crypto.randomUUID() }))).toBe(-32602);
    expect(await counts()).toEqual(before);
    // The refused resume left the task waiting; a valid one still works.
    expect((await send(approval, [{ text: "yes" }], { taskId: asked.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("returnImmediately answers SUBMITTED/WORKING at once; cancel follows the effective status", async () => {
    const slow = await client("slow");
    const started = await send(slow, [{ data: { delayMs: 300 } }], { returnImmediately: true });
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);
    expect(started.artifacts).toEqual([]);
    // A task still at work does not await input: a message to it is refused (-32004), nothing admitted.
    expect(await rpcCode(send(slow, [{ text: "hurry" }], { taskId: started.id }))).toBe(-32004);
    const cancelled = await slow.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    expect(cancelled.id).toBe(started.id);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const read = await eventually(async () => {
      const t = await slow.getTask({ tenant: "", id: started.id });
      return TERMINAL.includes(t.status!.state) ? t : undefined;
    });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(read.artifacts).toEqual([]);
    expect(await rpcCode(slow.cancelTask({ tenant: "", id: started.id, metadata: undefined }))).toBe(-32002);
  });

  it("ListTasks by contextId and status, newest first, with pages", async () => {
    const echo = await client("echo");
    const approval = await client("approval");
    const t1 = await send(echo, [{ text: "l1" }]);
    const t2 = await send(echo, [{ text: "l2" }], { contextId: t1.contextId });
    const t3 = await send(echo, [{ text: "l3" }], { contextId: t1.contextId });
    const list = (
      params: { contextId?: string; status?: TaskState; pageSize?: number; pageToken?: string; includeArtifacts?: boolean },
      on = echo,
    ) =>
      on.listTasks({
        tenant: "",
        contextId: params.contextId ?? "",
        status: params.status ?? TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: params.pageSize,
        pageToken: params.pageToken ?? "",
        statusTimestampAfter: undefined,
        includeArtifacts: params.includeArtifacts,
      });

    const all = await list({ contextId: t1.contextId });
    expect(all.tasks.map((t) => t.id)).toEqual([t3.id, t2.id, t1.id]);
    expect(all.totalSize).toBe(3);
    // Artifacts only when asked for (A2A's includeArtifacts defaults to false).
    expect(all.tasks[2]!.artifacts).toEqual([]);
    expect(texts((await list({ contextId: t1.contextId, includeArtifacts: true })).tasks[2]!)).toEqual(["echo: l1"]);

    const page1 = await list({ contextId: t1.contextId, pageSize: 2 });
    expect(page1.tasks.map((t) => t.id)).toEqual([t3.id, t2.id]);
    expect(page1.nextPageToken).toBe("2");
    const page2 = await list({ contextId: t1.contextId, pageSize: 2, pageToken: page1.nextPageToken });
    expect(page2.tasks.map((t) => t.id)).toEqual([t1.id]);
    expect(page2.nextPageToken).toBe("");

    expect((await list({ contextId: t1.contextId, status: TaskState.TASK_STATE_COMPLETED })).tasks).toHaveLength(3);
    expect((await list({ contextId: t1.contextId, status: TaskState.TASK_STATE_INPUT_REQUIRED })).tasks).toHaveLength(0);
    // Without a context: tasks of this agent everywhere (other tests' echo tasks too), none of another agent.
    const everywhere = await list({});
    expect(everywhere.tasks.map((t) => t.id)).toEqual(expect.arrayContaining([t1.id, t2.id, t3.id]));
    const asked = await send(approval, [{ data: { request: "list" } }]);
    const waiting = await list({ status: TaskState.TASK_STATE_INPUT_REQUIRED }, approval);
    expect(waiting.tasks.map((t) => t.id)).toContain(asked.id);
    expect(waiting.tasks.every((t) => t.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED)).toBe(true);
    expect((await list({}, approval)).tasks.map((t) => t.id)).not.toContain(t1.id);
  });

  it("SendStreamingMessage: the task, WORKING, the artifact, then the final status", async () => {
    const echo = await handler("echo");
    const events = await collect(echo.sendMessageStream(request([{ text: "streamed" }])));
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const task = (events[0]!.payload as { value: Task }).value;
    const states = events.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status!.state] : []));
    expect(states).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const artifact = (events[2]!.payload as Extract<StreamResponse["payload"], { $case: "artifactUpdate" }>).value;
    expect(artifact.taskId).toBe(task.id);
    expect(artifact.artifact!.parts[0]!.content).toEqual({ $case: "text", value: "echo: streamed" });
    expect(texts(await (await client("echo")).getTask({ tenant: "", id: task.id }))).toEqual(["echo: streamed"]);

    // A streamed resume of an input-required task ends COMPLETED under the same task id.
    const approval = await handler("approval");
    const asked = (await approval.sendMessage(request([{ data: { request: "stream" } }]))) as Task;
    const resumed = await collect(approval.sendMessageStream(request([{ text: "yes" }], { taskId: asked.id })));
    const last = resumed.at(-1)!.payload as Extract<StreamResponse["payload"], { $case: "statusUpdate" }>;
    expect(last.value.taskId).toBe(asked.id);
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("over the wire (official client, JSON-RPC + SSE): SendStreamingMessage and SubscribeToTask", async () => {
    const echo = await client("echo");
    const events: StreamResponse[] = [];
    for await (const event of echo.sendMessageStream(request([{ text: "wire" }]))) events.push(event);
    expect(events.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const last = events.at(-1)!.payload as Extract<StreamResponse["payload"], { $case: "statusUpdate" }>;
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const slow = await client("slow");
    const task = await send(slow, [{ data: { delayMs: 150 } }], { returnImmediately: true });
    const followed: StreamResponse[] = [];
    for await (const event of slow.resubscribeTask({ tenant: "", id: task.id })) followed.push(event);
    const end = followed.at(-1)!.payload as Extract<StreamResponse["payload"], { $case: "statusUpdate" }>;
    expect(end.value.taskId).toBe(task.id);
    expect(end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("SubscribeToTask follows a running task to its end; a terminal task is refused", async () => {
    const slow = await handler("slow");
    const task = (await slow.sendMessage(request([{ data: { delayMs: 150 } }], { returnImmediately: true }))) as Task;
    const events = await collect(slow.resubscribe({ tenant: "", id: task.id }));
    expect(events[0]!.payload?.$case).toBe("task");
    const last = events.at(-1)!.payload as Extract<StreamResponse["payload"], { $case: "statusUpdate" }>;
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.some((e) => e.payload?.$case === "artifactUpdate")).toBe(true);
    await expect(collect(slow.resubscribe({ tenant: "", id: task.id }))).rejects.toThrow(/COMPLETED/);
    await expect(collect(slow.resubscribe({ tenant: "", id: crypto.randomUUID() }))).rejects.toThrow(/not found/);
  });
});
