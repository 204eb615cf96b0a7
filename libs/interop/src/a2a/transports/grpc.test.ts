import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCard, ListTasksRequest, TaskState, type StreamResponse } from "@a2a-js/sdk";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { TaskNotFoundError, VersionNotSupportedError } from "@a2a-js/sdk/errors";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, startA2AGrpcServer, type A2ALogger, type RunningA2AGrpcServer } from "../../index.js";
import { messageRequest, sendTask, textsOf } from "../../../test/support/a2a-clients.js";
import { fetchCard, grpcClient, grpcClientFromCard, grpcFailure } from "../../../test/support/grpc-clients.js";

/**
 * The A2A gRPC binding through the official client (`GrpcTransportFactory`, preferred over the card's
 * other interfaces), on a real gRPC port on loopback beside the real HTTP server, on every driver: the
 * card's GRPC interface, each method, tenant routing between assistants, and errors in gRPC's shape.
 */
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;
const INTERNAL = 13;

describe.each(drivers)("A2A gRPC binding ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let grpc: RunningA2AGrpcServer;
  let base: string;
  const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const logger: A2ALogger = { error: (fields, message) => logged.push({ fields, message }) };
  /** While set, `runs.get` fails as a broken database would. */
  let broken = false;

  beforeAll(async () => {
    opened = await driver.open();
    const storage = breakable(opened.storage, () => broken);
    server = await startTestServer(storage, {
      app: { extraRoutes: [(deps) => a2aRoutes(deps, { defaultAssistant: "echo", grpc: () => grpc })] },
    });
    base = server.url.replace(/\/$/, "");
    grpc = await startA2AGrpcServer({ engine: server.engine, storage }, { host: "127.0.0.1", port: 0, logger, defaultAssistant: "echo" });
  });

  afterAll(async () => {
    await grpc?.close();
    await server?.close();
    await opened?.dispose();
  });

  it("lists the GRPC interface with the bound port and the assistant as tenant on every card", async () => {
    expect(grpc.port).toBeGreaterThan(0);
    expect(grpc.url).toBe(`127.0.0.1:${grpc.port}`);
    const card = await fetchCard(base, "echo");
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(["JSONRPC", "HTTP+JSON", "JSONRPC", "GRPC"]);
    expect(card.supportedInterfaces.at(-1)).toEqual({
      url: `dns:///127.0.0.1:${grpc.port}`,
      protocolBinding: "GRPC",
      tenant: "echo",
      protocolVersion: "1.0",
    });
    const root = AgentCard.fromJSON(await (await fetch(`${base}/.well-known/agent-card.json?assistant_id=approval`)).json());
    expect(root.supportedInterfaces.at(-1)).toMatchObject({ protocolBinding: "GRPC", tenant: "approval" });
  });

  it("the GRPC interface URL is absolute (gRPC's dns:/// URI), and the official client dials it from the card", async () => {
    const card = await fetchCard(base, "echo");
    const url = new URL(card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")!.url);
    expect([url.protocol, url.pathname]).toEqual(["dns:", `/127.0.0.1:${grpc.port}`]);
    const client = await grpcClientFromCard(card);
    expect((await sendTask(client, [{ text: "dialed" }])).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("SendMessage completes with its artifact, and GetTask renders the same task", async () => {
    const client = await grpcClient(base, "echo");
    const task = await sendTask(client, [{ text: "over grpc" }]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textsOf(task.artifacts[0]!.parts)).toEqual(["echo: over grpc"]);
    expect(task.metadata).toMatchObject({ assistant_id: (await server.client.assistants.search({ graphId: "echo" }))[0]!.assistant_id });
    expect(await client.getTask({ tenant: "", id: task.id })).toEqual(task);
    // A second turn in the context is a new task; the first keeps its own output.
    const second = await sendTask(client, [{ text: "again" }], { contextId: task.contextId });
    expect(second.id).not.toBe(task.id);
    expect(textsOf((await client.getTask({ tenant: "", id: task.id })).artifacts[0]!.parts)).toEqual(["echo: over grpc"]);
  });

  it("SendStreamingMessage streams the task, WORKING, the artifact and the final status", async () => {
    const client = await grpcClient(base, "echo");
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(messageRequest([{ text: "streamed" }]))) events.push(event);
    expect(events.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const [first, working, artifact, final] = events.map((e) => e.payload!);
    if (
      first!.$case !== "task" ||
      working!.$case !== "statusUpdate" ||
      artifact!.$case !== "artifactUpdate" ||
      final!.$case !== "statusUpdate"
    ) {
      throw new Error("unexpected event shapes");
    }
    expect(working.value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(textsOf(artifact.value.artifact!.parts)).toEqual(["echo: streamed"]);
    expect(final.value).toMatchObject({ taskId: first.value.id, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect((await client.getTask({ tenant: "", id: first.value.id })).artifacts).toEqual([artifact.value.artifact]);
  });

  it("an input-required task is resumed by a message with its taskId", async () => {
    const client = await grpcClient(base, "approval");
    const asked = await sendTask(client, [{ data: { request: "deploy" } }]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = await sendTask(client, [{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId });
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const data = done.artifacts[0]!.parts.find((p) => p.content?.$case === "data")?.content;
    expect(data?.$case === "data" ? data.value : undefined).toMatchObject({ request: "deploy", decision: "yes" });
  });

  it("CancelTask cancels a running task; ListTasks lists the context's tasks", async () => {
    const client = await grpcClient(base, "slow");
    const started = await sendTask(client, [{ data: { delayMs: 5000 } }], { returnImmediately: true });
    const cancelled = await client.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: "", id: started.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: started.contextId }));
    expect(listed.tasks.map((t) => [t.id, t.status?.state])).toEqual([[started.id, TaskState.TASK_STATE_CANCELED]]);
    expect(listed.totalSize).toBe(1);
    const completed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: started.contextId, status: "TASK_STATE_COMPLETED" }));
    expect(completed.tasks).toEqual([]);
    // Bad parameters are INVALID_ARGUMENT, as the other bindings answer them -32602 / 400.
    expect((await grpcFailure(client.listTasks(ListTasksRequest.fromJSON({ pageSize: 101 })))).status).toBe(INVALID_ARGUMENT);
  });

  it("creates, reads, lists and deletes push notification configs", async () => {
    const client = await grpcClient(base, "echo");
    const task = await sendTask(client, [{ text: "push" }]);
    const config = { tenant: "", taskId: task.id, id: "hook", url: "https://example.com/hook", token: "t", authentication: undefined };
    expect(await client.createTaskPushNotificationConfig(config)).toMatchObject({
      taskId: task.id,
      id: "hook",
      url: config.url,
      token: "t",
    });
    expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook" })).toMatchObject({
      id: "hook",
      url: config.url,
    });
    const listed = await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
    expect(listed.configs.map((c) => c.id)).toEqual(["hook"]);
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook" });
    expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs).toEqual([]);
    const missing = await grpcFailure(client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook" }));
    expect(missing.status).toBe(NOT_FOUND);
  });

  it("an unknown task is the SDK's TaskNotFoundError (NOT_FOUND)", async () => {
    const client = await grpcClient(base, "echo");
    const failure = await grpcFailure(client.getTask({ tenant: "", id: "00000000-0000-0000-0000-000000000000" }));
    expect(failure.status).toBe(NOT_FOUND);
    expect(failure.error).toBeInstanceOf(TaskNotFoundError);
  });

  it("routes by tenant: another assistant's id or graph name, the default for an empty one, NOT_FOUND for an unknown one", async () => {
    const echo = await grpcClient(base, "echo");
    const approvalId = (await server.client.assistants.search({ graphId: "approval" }))[0]!.assistant_id;
    const approval = await grpcClient(base, approvalId);
    const asked = await sendTask(approval, [{ data: { request: "merge" } }]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // Tasks belong to their assistant: under echo's tenant the approval task does not exist, under its own it does.
    expect((await grpcFailure(echo.getTask({ tenant: "", id: asked.id }))).error).toBeInstanceOf(TaskNotFoundError);
    expect((await echo.getTask({ tenant: "approval", id: asked.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    // A card whose GRPC interface names no tenant: the calls go to the default assistant (echo).
    const card = await fetchCard(base, "approval");
    const untenanted = await grpcClientFromCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.map((i) => (i.protocolBinding === "GRPC" ? { ...i, tenant: "" } : i)),
    });
    expect(textsOf((await sendTask(untenanted, [{ text: "default" }])).artifacts[0]!.parts)).toEqual(["echo: default"]);

    const unknown = await grpcFailure(echo.getTask({ tenant: "nope", id: asked.id }));
    expect(unknown.status).toBe(NOT_FOUND);
    expect(unknown.message).toContain('Assistant "nope" not found');
    expect(unknown.error).not.toBeInstanceOf(TaskNotFoundError);
  });

  it("refuses a call without A2A-Version (read as v0.3) with VersionNotSupported", async () => {
    // The transport alone sends no A2A-Version metadata (the Client adds it).
    const transport = await new GrpcTransportFactory().create(grpc.url, await fetchCard(base, "echo"));
    const failure = await grpcFailure(transport.getTask({ tenant: "echo", id: "00000000-0000-0000-0000-000000000000" }));
    expect(failure.status).toBe(FAILED_PRECONDITION);
    expect(failure.error).toBeInstanceOf(VersionNotSupportedError);
    expect(failure.message).toContain("'0.3'");
  });

  it("answers an unexpected error INTERNAL 'Internal error' without its text, and logs it", async () => {
    const client = await grpcClient(base, "echo");
    const task = await sendTask(client, [{ text: "before" }]);
    logged.length = 0;
    broken = true;
    let unary: Awaited<ReturnType<typeof grpcFailure>>;
    let streamed: Awaited<ReturnType<typeof grpcFailure>>;
    try {
      unary = await grpcFailure(client.getTask({ tenant: "", id: task.id }));
      streamed = await grpcFailure(
        (async () => {
          for await (const _event of client.sendMessageStream(
            messageRequest([{ text: "x" }], { taskId: task.id, contextId: task.contextId }),
          )) {
            void _event;
          }
        })(),
      );
    } finally {
      broken = false;
    }
    for (const failure of [unary, streamed]) {
      expect(failure.status).toBe(INTERNAL);
      expect(failure.message).toMatch(/Internal error$/);
      expect(failure.message).not.toContain("SECRET");
    }
    expect(logged.map((e) => [e.fields.binding, e.fields.method, String((e.fields.err as Error).message)])).toEqual([
      ["GRPC", "GetTask", "SECRET database layout"],
      ["GRPC", "SendStreamingMessage", "SECRET database layout"],
    ]);
  });
});

/** `inner` whose run reads (`runs.get`, and `runs.getTask`, a task's read) throw while `isBroken()` (as a corrupt database would). */
function breakable(inner: Storage, isBroken: () => boolean): Storage {
  const runs = new Proxy(inner.runs, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if ((property !== "get" && property !== "getTask") || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (isBroken()) throw new Error("SECRET database layout");
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return new Proxy(inner, { get: (target, property, receiver) => (property === "runs" ? runs : Reflect.get(target, property, receiver)) });
}
