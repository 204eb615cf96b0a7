import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, RestTransportFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, authorizeThread, requestScope, type A2AHandlerDeps } from "./index.js";

/**
 * The A2A surface around the task semantics: cards (per assistant, LangGraph's ?assistant_id=, the
 * domain-root default), the HTTP+JSON binding, legacy v0.3 JSON-RPC and JSON-RPC errors, each through
 * the official @a2a-js/sdk clients against the real HTTP server.
 */
let server: TestServer;
let dispose: () => Promise<void>;
let base: string;

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  dispose = opened.dispose;
  server = await startTestServer(opened.storage, {
    app: { extraRoutes: [(deps) => a2aRoutes(deps, { defaultAssistant: "echo" })] },
  });
  base = server.url.replace(/\/$/, "");
});

afterAll(async () => {
  await server?.close();
  await dispose?.();
});

function message(text: string) {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } });
}

function textOf(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

function taskIdOf(event: StreamResponse): string {
  const payload = event.payload;
  if (!payload) throw new Error("empty stream event");
  switch (payload.$case) {
    case "task":
      return payload.value.id;
    case "statusUpdate":
    case "artifactUpdate":
      return payload.value.taskId;
    default:
      return payload.value.taskId;
  }
}

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

describe("A2A agent cards", () => {
  it("serves the card per assistant, at ?assistant_id= and at the domain root (default assistant)", async () => {
    const perAssistant = await getJson(`${base}/a2a/echo/.well-known/agent-card.json`);
    const byQuery = await getJson(`${base}/.well-known/agent-card.json?assistant_id=echo`);
    const root = await getJson(`${base}/.well-known/agent-card.json`);
    for (const { status, body } of [perAssistant, byQuery, root]) {
      expect(status).toBe(200);
      expect(body.name).toBe("echo");
      expect(body.supportedInterfaces).toEqual([
        { url: `${base}/a2a/echo`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: `${base}/a2a/echo`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        { url: `${base}/a2a/echo`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ]);
      expect(body.capabilities).toMatchObject({ streaming: true });
      // The memory driver keeps push notification configs.
      expect(body.capabilities.pushNotifications).toBe(true);
      expect(body.skills[0]).toMatchObject({ id: "echo" });
      // v0.3 fields beside the v1.0 ones.
      expect(body).toMatchObject({
        url: `${base}/a2a/echo`,
        preferredTransport: "JSONRPC",
        protocolVersion: "0.3.0",
        additionalInterfaces: [{ url: `${base}/a2a/echo`, transport: "JSONRPC" }],
      });
    }
    // An assistant id works as well as a graph name.
    const assistantId = server.engine.registry.resolveAssistantId("approval");
    const byId = await getJson(`${base}/.well-known/agent-card.json?assistant_id=${assistantId}`);
    expect(byId.body.supportedInterfaces[0].url).toBe(`${base}/a2a/${assistantId}`);
    expect((await getJson(`${base}/.well-known/agent-card.json?assistant_id=nope`)).status).toBe(404);
  });

  it("answers 404 at the domain root without a default when several graphs exist, and uses the only graph otherwise", async () => {
    const ambiguous = await startTestServer(server.storage, { app: { extraRoutes: [a2aRoutes] } });
    try {
      const { status, body } = await getJson(`${ambiguous.url.replace(/\/$/, "")}/.well-known/agent-card.json`);
      expect(status).toBe(404);
      expect(body.detail).toMatch(/default_assistant/);
    } finally {
      await ambiguous.close();
    }
    // One graph: it is the default (deps read structurally, as a2aRoutes does).
    const echo = await server.storage.assistants.get(server.engine.registry.resolveAssistantId("echo"));
    const single = a2aRoutes({
      engine: {
        registry: { ids: () => ["echo"], resolveAssistantId: () => echo!.assistant_id, description: () => undefined },
        assistants: { get: async () => echo },
      },
      storage: {},
    } as unknown as A2AHandlerDeps);
    const response = await single.request("http://agent.test/.well-known/agent-card.json");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { url: string }).url).toBe("http://agent.test/a2a/echo");
  });

  it("is read by the official client from the domain root (createFromUrl without a path)", async () => {
    const client = await new ClientFactory().createFromUrl(base);
    const task = await client.sendMessage(message("root"));
    expect(textOf(task as Task)).toEqual(["echo: root"]);
  });
});

describe("A2A HTTP+JSON binding", () => {
  it("SendMessage and GetTask through the SDK client preferring HTTP+JSON", async () => {
    const calls: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      calls.push(`${init?.method ?? "GET"} ${String(input).slice(base.length)}`);
      return fetch(input, init);
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new RestTransportFactory({ fetchImpl: recording })],
        preferredTransports: ["HTTP+JSON"],
      }),
    );
    const client: A2AClient = await factory.createFromUrl(`${base}/a2a/echo/`);
    const sent = (await client.sendMessage(message("over rest"))) as Task;
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(sent)).toEqual(["echo: over rest"]);
    const got = await client.getTask({ tenant: "", id: sent.id });
    expect(got.id).toBe(sent.id);
    expect(got.contextId).toBe(sent.contextId);
    expect(got.artifacts).toEqual(sent.artifacts);
    expect(calls).toEqual(["POST /a2a/echo/message:send", `GET /a2a/echo/tasks/${sent.id}`]);
    await expect(client.getTask({ tenant: "", id: "00000000-0000-0000-0000-000000000000" })).rejects.toThrow(/not found/i);
  });

  it("streams (message:stream, SSE) and lists tasks over HTTP+JSON", async () => {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["HTTP+JSON"] }),
    );
    const client = await factory.createFromUrl(`${base}/a2a/echo/`);
    const events = [];
    for await (const event of client.sendMessageStream(message("streamed"))) events.push(event);
    expect(events.length).toBeGreaterThan(0);
    const last = events.at(-1)!;
    const final = last.payload?.$case === "task" ? last.payload.value : await client.getTask({ tenant: "", id: taskIdOf(last) });
    expect(final.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const listed = await client.listTasks({
      tenant: "",
      contextId: final.contextId,
      status: 0,
      pageToken: "",
      includeArtifacts: true,
    } as never);
    expect(listed.tasks.map((t) => t.id)).toEqual([final.id]);
  });

  it("streams over JSON-RPC v1.0 (SendStreamingMessage, SSE)", async () => {
    const client = await new ClientFactory().createFromUrl(`${base}/a2a/echo/`);
    const events = [];
    for await (const event of client.sendMessageStream(message("rpc stream"))) events.push(event);
    const task = await client.getTask({ tenant: "", id: taskIdOf(events[0]!) });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task)).toEqual(["echo: rpc stream"]);
  });

  it("answers errors in the binding's shape", async () => {
    const headers = { "A2A-Version": "1.0", "Content-Type": "application/json" };
    const missing = await getJson(`${base}/a2a/echo/tasks/00000000-0000-0000-0000-000000000000`, { headers });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    const malformed = await getJson(`${base}/a2a/echo/message:send`, { method: "POST", headers, body: "{nope" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    const noMessage = await getJson(`${base}/a2a/echo/message:send`, { method: "POST", headers, body: "{}" });
    expect(noMessage.status).toBe(400);
    const unknownRoute = await getJson(`${base}/a2a/echo/nowhere`, { headers });
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });
});

describe("A2A JSON-RPC: v0.3 and errors", () => {
  it("serves a v0.3 client (the SDK's LegacyJsonRpcTransport) at the same URL", async () => {
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a/echo` });
    const sent = (await legacy.sendMessage(message("old client"))) as Task;
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(sent)).toEqual(["echo: old client"]);
    const got = await legacy.getTask({ tenant: "", id: sent.id });
    expect(got.id).toBe(sent.id);
    expect(textOf(got)).toEqual(["echo: old client"]);
  });

  it("answers raw v0.3 message/send and tasks/get without the A2A-Version header in v0.3 shapes", async () => {
    const rpc = (body: unknown) =>
      getJson(`${base}/a2a/echo`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const sent = await rpc({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "raw" }] } },
    });
    expect(sent.body.error).toBeUndefined();
    expect(sent.body.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    const got = await rpc({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: sent.body.result.id } });
    expect(got.body).toMatchObject({ id: 2, result: { kind: "task", id: sent.body.result.id, contextId: sent.body.result.contextId } });
    expect(got.body.result.artifacts[0].parts[0]).toMatchObject({ kind: "text", text: "echo: raw" });
    const missing = await rpc({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: "00000000-0000-0000-0000-000000000000" } });
    expect(missing.body.error.code).toBe(-32001);
  });

  it("streams v0.3 message/stream as SSE of v0.3 envelopes", async () => {
    const response = await fetch(`${base}/a2a/echo`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "s1",
        method: "message/stream",
        params: {
          message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "old stream" }] },
        },
      }),
    });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = (await response.text())
      .split("\n\n")
      .filter((chunk) => chunk.startsWith("data: "))
      .map((chunk) => JSON.parse(chunk.slice("data: ".length)) as { id: string; result: { kind: string; status?: { state: string } } });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.id === "s1" && ["task", "status-update", "artifact-update", "message"].includes(e.result.kind))).toBe(
      true,
    );
    const states = events.flatMap((e) => (e.result.status ? [e.result.status.state] : []));
    expect(states.at(-1)).toBe("completed");
  });

  it.each([
    ["v1.0", { "A2A-Version": "1.0" }, "NoSuchMethod"],
    ["v0.3", {}, "no/such"],
  ])("answers malformed JSON with -32700 and unknown methods with -32601 (%s)", async (_name, version, method) => {
    const headers = { "Content-Type": "application/json", ...version };
    const parse = await getJson(`${base}/a2a/echo`, { method: "POST", headers, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(parse.status).toBe(200);
    expect(parse.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const unknown = await getJson(`${base}/a2a/echo`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: {} }),
    });
    expect(unknown.body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });
  });
});

describe("A2A request scope", () => {
  const owner = (identity: string) => ({
    user: { identity, permissions: [], is_authenticated: true },
    authorize: async (_resource: "threads", action: string, value: object) => {
      if (action === "create") {
        const v = value as { metadata: Record<string, unknown> };
        v.metadata.owner = identity;
      }
      return { owner: identity };
    },
  });

  it("applies threads:<action> filters to the thread's metadata: a foreign task is not found", async () => {
    const alice = requestScope(owner("alice"));
    const bob = requestScope(owner("bob"));
    expect(alice.auth).toEqual({ user: expect.objectContaining({ identity: "alice" }), permissions: [] });
    const thread = { thread_id: "t1", metadata: {} as Record<string, unknown> };
    await alice.authorize("create", thread);
    expect(thread.metadata).toEqual({ owner: "alice" });
    await expect(alice.authorize("read", thread)).resolves.toBeUndefined();
    await expect(bob.authorize("read", thread)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(bob.authorize("create_run", thread)).rejects.toBeInstanceOf(TaskNotFoundError);
    const threads = { get: async (id: string) => (id === "t1" ? thread : null) };
    await expect(authorizeThread(alice, threads, "t1", "read")).resolves.toBe(thread);
    await expect(authorizeThread(bob, threads, "t1", "update")).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(authorizeThread(alice, threads, "t2", "read")).rejects.toBeInstanceOf(TaskNotFoundError);
    // Without custom auth nothing is filtered.
    const open = requestScope(undefined);
    expect(open.auth).toBeUndefined();
    await expect(open.authorize("read", thread)).resolves.toBeUndefined();
  });
});
