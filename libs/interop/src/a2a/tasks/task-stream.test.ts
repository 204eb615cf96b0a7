import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Artifact, type StreamResponse, type Task, type TaskArtifactUpdateEvent } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { eventually } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";

/**
 * Token streaming (SendStreamingMessage, SubscribeToTask): the `chat` test graph answers through
 * LangChain's FakeListChatModel, which streams its reply one character at a time; each chunk reaches the
 * official @a2a-js/sdk client as an artifact update, over JSON-RPC and HTTP+JSON, on every driver.
 */

type PartJson = { text: string } | { data: Record<string, unknown> };

function request(parts: PartJson[], options: { taskId?: string; returnImmediately?: boolean } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId: options.taskId ?? "", parts },
    ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

/** What the chat graph answers to `text`. */
const reply = (text: string) => `You said: ${text}.`;

function artifactUpdate(event: StreamResponse): TaskArtifactUpdateEvent | undefined {
  return event.payload?.$case === "artifactUpdate" ? event.payload.value : undefined;
}

function textOf(artifact: Artifact | undefined): string {
  return (artifact?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

function finalState(events: StreamResponse[]): TaskState | undefined {
  const last = events.at(-1)?.payload;
  return last?.$case === "statusUpdate" ? last.value.status?.state : undefined;
}

/**
 * The shape of a token-streamed task: task, WORKING, one or more chunk updates (append false, then true;
 * never the last chunk), the recorded artifact (append false, lastChunk true), the final status. Returns
 * the chunks' text and the final artifact.
 */
function tokenStream(events: StreamResponse[]): { chunks: TaskArtifactUpdateEvent[]; text: string; final: TaskArtifactUpdateEvent } {
  const kinds = events.map((e) => e.payload?.$case);
  expect(kinds.slice(0, 2)).toEqual(["task", "statusUpdate"]);
  expect(kinds.slice(-2)).toEqual(["artifactUpdate", "statusUpdate"]);
  const chunks = events.slice(2, -2).map((e) => artifactUpdate(e)!);
  expect(chunks.every(Boolean)).toBe(true);
  expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual(chunks.map((_, i) => [i > 0, false]));
  const final = artifactUpdate(events.at(-2)!)!;
  expect([final.append, final.lastChunk]).toEqual([false, true]);
  // Every chunk updates the artifact the recorded one replaces.
  for (const chunk of chunks) expect([chunk.artifact?.artifactId, chunk.artifact?.name]).toEqual([final.artifact?.artifactId, "result"]);
  return { chunks, text: chunks.map((c) => textOf(c.artifact)).join(""), final };
}

describe.each(drivers)("A2A token streaming ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  const clients = new Map<string, A2AClient>();

  /** The official client for `assistant` over `binding`. */
  async function client(assistant: string, binding: "JSONRPC" | "HTTP+JSON" = "JSONRPC"): Promise<A2AClient> {
    const key = `${assistant} ${binding}`;
    if (!clients.has(key)) {
      const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
      clients.set(key, await factory.createFromUrl(`${server.url.replace(/\/$/, "")}/a2a/${assistant}/`));
    }
    return clients.get(key)!;
  }

  async function streamed(a2a: A2AClient, message: SendMessageRequest): Promise<StreamResponse[]> {
    const events: StreamResponse[] = [];
    for await (const event of a2a.sendMessageStream(message)) events.push(event);
    return events;
  }

  beforeAll(async () => {
    opened = await driver.open();
    server = await startTestServer(opened.storage, { app: { extraRoutes: [a2aRoutes] } });
  });
  afterAll(async () => {
    await server?.close();
    await opened?.dispose();
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("over %s: the reply's tokens, then the recorded artifact and COMPLETED", async (binding) => {
    const chat = await client("chat", binding);
    const events = await streamed(chat, request([{ text: "hello there" }]));
    const { chunks, text, final } = tokenStream(events);
    expect(chunks.length).toBeGreaterThan(5);
    expect(text).toBe(reply("hello there"));
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    // The last artifact update is exactly what GetTask returns afterwards (the durable result).
    const task = (events[0]!.payload as { value: Task }).value;
    const got = await chat.getTask({ tenant: "", id: task.id });
    expect(got.artifacts).toHaveLength(1);
    expect(final.artifact).toEqual(got.artifacts[0]);
    expect(textOf(got.artifacts[0])).toBe(reply("hello there"));
  });

  it("a graph that streams no tokens (echo) gives the same events as before: one artifact update, the last chunk", async () => {
    const echo = await client("echo");
    const events = await streamed(echo, request([{ text: "no tokens" }]));
    expect(events.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const only = artifactUpdate(events[2]!)!;
    expect([only.append, only.lastChunk, textOf(only.artifact)]).toEqual([false, true, "echo: no tokens"]);
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a continuation sent as a streaming message streams the answer it resumes into", async () => {
    const chat = await client("chat");
    const asked = (await chat.sendMessage(request([{ text: "ask me" }]))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const events = await streamed(chat, request([{ text: "the weather" }], { taskId: asked.id }));
    const { text, final } = tokenStream(events);
    expect(text).toBe(reply("the weather"));
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    const got = await chat.getTask({ tenant: "", id: asked.id });
    expect(got.id).toBe(asked.id);
    // The continuation's own result artifact (not the first run's).
    expect(final.artifact).toEqual(got.artifacts[0]);
    expect(final.artifact?.artifactId).not.toBe(`${asked.id}:result`);
  });

  it("SubscribeToTask mid-run gets the tokens from then on, then the recorded artifact", async () => {
    const chat = await client("chat");
    const said = "subscribe while it talks";
    const sender = chat.sendMessageStream(request([{ text: said }, { data: { delayMs: 25 } }]));
    const sent: StreamResponse[] = [];
    for await (const event of sender) {
      sent.push(event);
      if (sent.filter((e) => artifactUpdate(e)).length === 3) break;
    }
    const taskId = (sent[0]!.payload as { value: Task }).value.id;
    const followed: StreamResponse[] = [];
    for await (const event of chat.resubscribeTask({ tenant: "", id: taskId })) followed.push(event);
    const { text, final } = tokenStream(followed);
    expect((followed[0]!.payload as { value: Task }).value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // A non-empty part of the reply, without what was said before the subscription.
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThanOrEqual(reply(said).length - 3);
    expect(reply(said).endsWith(text)).toBe(true);
    expect(finalState(followed)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(final.artifact).toEqual((await chat.getTask({ tenant: "", id: taskId })).artifacts[0]);
  });

  it("SubscribeToTask as the run ends: the full end (recorded artifact, COMPLETED) or refused as terminal, never a hang", async () => {
    const chat = await client("chat");
    // The sender's stream has 21 events ("You said: race." is 15 tokens): subscribing after the k-th
    // lands mid-run, as the last tokens stream, as the run settles, or after it has ended.
    for (const k of [2, 8, 14, 16, 17, 18, 19, 20, 21]) {
      const sender = chat.sendMessageStream(request([{ text: "race" }, { data: { delayMs: 1 } }]));
      const seen: StreamResponse[] = [];
      for (let i = 0; i < k; i++) seen.push((await sender.next()).value as StreamResponse);
      const taskId = (seen[0]!.payload as { value: Task }).value.id;
      const following = (async () => {
        const followed: StreamResponse[] = [];
        for await (const event of chat.resubscribeTask({ tenant: "", id: taskId })) followed.push(event);
        return followed;
      })().catch((error: { envelopeCode?: number; code?: number }) => error.envelopeCode ?? error.code);
      for await (const _event of sender) void _event;
      const followed = await following;
      if (!Array.isArray(followed)) {
        // Already COMPLETED when it asked: nothing to subscribe to (UnsupportedOperation).
        expect(followed).toBe(-32004);
        continue;
      }
      expect(finalState(followed)).toBe(TaskState.TASK_STATE_COMPLETED);
      const recorded = (await chat.getTask({ tenant: "", id: taskId })).artifacts[0];
      if (followed.length === 2) {
        // Ended between the subscription's first look and its render: the COMPLETED task, artifact included.
        expect((followed[0]!.payload as { value: Task }).value.artifacts).toEqual([recorded]);
      } else {
        expect(artifactUpdate(followed.at(-2)!)).toMatchObject({ append: false, lastChunk: true, artifact: recorded });
      }
    }
  });

  it("SubscribeToTask of a run a non-streaming message admitted: no tokens (no messages mode), the end as before", async () => {
    const chat = await client("chat");
    const task = (await chat.sendMessage(request([{ text: "quietly" }, { data: { delayMs: 20 } }], { returnImmediately: true }))) as Task;
    const followed: StreamResponse[] = [];
    for await (const event of chat.resubscribeTask({ tenant: "", id: task.id })) followed.push(event);
    expect(followed.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    expect(finalState(followed)).toBe(TaskState.TASK_STATE_COMPLETED);
    const run = await server.storage.runs.get(task.id);
    expect(run?.kwargs.stream_mode).toEqual(["values"]);
  });

  it("a client that leaves mid-stream: its subscription closes while the run goes on to COMPLETED", async () => {
    const chat = await client("chat");
    const said = "leaving early, while it still talks";
    let taskId = "";
    let chunks = 0;
    for await (const event of chat.sendMessageStream(request([{ text: said }, { data: { delayMs: 40 } }]))) {
      if (event.payload?.$case === "task") taskId = event.payload.value.id;
      if (artifactUpdate(event) && ++chunks === 2) break;
    }
    // The hub's subscribers of the run (private state, read here because no public API lists them): the
    // stream's subscription is closed by the next chunk after the client left, long before the run ends.
    const hub = server.engine.hub as unknown as { subscribers: Map<string, unknown>; followed: Map<string, unknown> };
    await eventually(async () => !hub.subscribers.has(taskId));
    expect((await server.storage.runs.get(taskId))?.status).toBe("running");
    expect((await server.engine.waitRun(taskId)).status).toBe("success");
    const got = await chat.getTask({ tenant: "", id: taskId });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(got.artifacts[0])).toBe(reply(said));
    // Nothing of the stream outlives the run: no subscriber, and the run's channel is no longer followed.
    await eventually(async () => !hub.subscribers.has(taskId) && !hub.followed.has(taskId));
  });

  it("legacy v0.3 message/stream carries the tokens as artifact-update events with append and lastChunk", async () => {
    const response = await fetch(`${server.url.replace(/\/$/, "")}/a2a/chat`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/stream",
        params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "old" }] } },
      }),
    });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const results = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => JSON.parse(line.slice(5)).result as Record<string, unknown>);
    const updates = results.filter((r) => r.kind === "artifact-update") as Array<{
      append?: boolean;
      lastChunk?: boolean;
      artifact: { artifactId: string; parts: Array<{ kind: string; text?: string }> };
    }>;
    const chunks = updates.slice(0, -1);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.map((u) => [u.append, u.lastChunk])).toEqual(chunks.map((_, i) => [i > 0, false]));
    expect(chunks.map((u) => u.artifact.parts[0]!.text).join("")).toBe(reply("old"));
    expect(updates.at(-1)).toMatchObject({ append: false, lastChunk: true, artifact: { artifactId: chunks[0]!.artifact.artifactId } });
    expect(results.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
  });
});

describe.each(drivers)("A2A token streaming across server processes ($name)", (driver) => {
  it("a run executing in another process streams to the client of this one as far as the driver's signals reach", async () => {
    const opened = await driver.open();
    // The client's server admits and streams but executes nothing (no workers); the other one, on its
    // own driver over the same data, executes the run.
    const front = await startTestServer(opened.storage, { app: { extraRoutes: [a2aRoutes] }, engine: { workers: 0 } });
    const back = await startTestServer(await opened.connect(), { app: { extraRoutes: [a2aRoutes] } });
    try {
      const chat = await new ClientFactory().createFromUrl(`${front.url.replace(/\/$/, "")}/a2a/chat/`);
      const events: StreamResponse[] = [];
      for await (const event of chat.sendMessageStream(request([{ text: "from afar" }]))) events.push(event);
      const taskId = (events[0]!.payload as { value: Task }).value.id;
      expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
      const recorded = (await chat.getTask({ tenant: "", id: taskId })).artifacts[0];
      if (opened.storage.signals?.reach === "database") {
        const { text, final } = tokenStream(events);
        expect(text).toBe(reply("from afar"));
        expect(final.artifact).toEqual(recorded);
      } else {
        // SQLite: no signal reaches another process (docs/engine.md, Known limits): no tokens, the end
        // found by the status poll, and the recorded artifact as from a graph without tokens.
        expect(events.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
        expect(artifactUpdate(events[2]!)!.artifact).toEqual(recorded);
      }
    } finally {
      await front.close();
      await back.close();
      await opened.dispose();
    }
  });
});
