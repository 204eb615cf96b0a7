import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, StreamResponse, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { eventually } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { errorCode as rpcCode } from "../../../test/support/a2a-clients.js";
import { startReceiver, type ReceivedNotification, type TestReceiver } from "../../../test/support/push-receiver.js";

/**
 * A2A push notifications end to end: configs created through the official @a2a-js/sdk client
 * (JSON-RPC, HTTP+JSON) and raw v0.3 JSON-RPC, notifications delivered by the engine's outbox to a real
 * receiver on loopback HTTP when a task's run settles.
 */

type PushJson = { url: string; token?: string; authentication?: { scheme: string; credentials: string } };

function request(
  parts: unknown[],
  options: { taskId?: string; contextId?: string; push?: PushJson; returnImmediately?: boolean } = {},
): SendMessageRequest {
  const configuration = {
    ...(options.push ? { taskPushNotificationConfig: options.push } : {}),
    ...(options.returnImmediately ? { returnImmediately: true } : {}),
  };
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId: options.taskId ?? "", contextId: options.contextId ?? "", parts },
    ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
  });
}

async function send(client: A2AClient, parts: unknown[], options: Parameters<typeof request>[1] = {}): Promise<Task> {
  const result = await client.sendMessage(request(parts, options));
  if (!("status" in result)) throw new Error("expected a task");
  return result;
}

/** The task a notification carries (`{"task": {...}}`, as the SDK's V1 serializer writes it). */
function notifiedTask(notification: ReceivedNotification): Task {
  const response = StreamResponse.fromJSON(JSON.parse(notification.body));
  if (response.payload?.$case !== "task") throw new Error(`expected a task payload: ${notification.body}`);
  return response.payload.value;
}

function texts(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

describe.each(drivers)("A2A push notifications ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let storage: Storage;
  let base: string;
  const receivers: TestReceiver[] = [];
  const clients: Record<string, A2AClient> = {};
  const client = async (assistant: string): Promise<A2AClient> =>
    (clients[assistant] ??= await new ClientFactory().createFromUrl(`${base}/a2a/${assistant}/`));
  const receiver = async (failures = 0) => {
    const started = await startReceiver(failures);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    opened = await driver.open();
    storage = opened.storage;
    server = await startTestServer(storage, {
      // Quick retries, as the engine's own outbox tests use.
      engine: { outbox: { pollMs: 50, backoffMs: 50, maxBackoffMs: 200, maxAttempts: 5, timeoutMs: 2000 } },
      app: { extraRoutes: [a2aRoutes] },
    });
    base = server.url.replace(/\/$/, "");
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    await server?.close();
    await opened?.dispose();
  });

  it("the card says pushNotifications: true", async () => {
    const card = (await (await fetch(`${base}/a2a/echo/.well-known/agent-card.json`)).json()) as {
      capabilities: { pushNotifications?: boolean };
    };
    expect(card.capabilities.pushNotifications).toBe(true);
  });

  it("notifies a completed task with its token, Authorization and artifact: the task as GetTask renders it", async () => {
    const hook = await receiver();
    const echo = await client("echo");
    const push = { url: hook.url, token: "tok-1", authentication: { scheme: "Bearer", credentials: "s3cret" } };
    const task = await send(echo, [{ text: "push me" }], { push });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await eventually(async () => hook.received.length === 1);
    const [notification] = hook.received;
    expect(notification!.path).toBe("/hook");
    expect(notification!.headers["x-a2a-notification-token"]).toBe("tok-1");
    expect(notification!.headers["authorization"]).toBe("Bearer s3cret");
    expect(notification!.headers["content-type"]).toBe("application/a2a+json");
    const read = await echo.getTask({ tenant: "", id: task.id });
    expect(JSON.parse(notification!.body)).toEqual(StreamResponse.toJSON({ payload: { $case: "task", value: read } }));
    expect(texts(notifiedTask(notification!))).toEqual(["echo: push me"]);
    // The config is the task's: listed with the id the server gave it.
    const listed = await echo.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
    expect(listed.configs).toEqual([expect.objectContaining({ taskId: task.id, url: hook.url, token: "tok-1", id: expect.any(String) })]);
    // Exactly one notification per settled run and config.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.attempts()).toBe(1);
  });

  it("INPUT_REQUIRED, then COMPLETED after the resume; a continuation registers its own config on the task", async () => {
    const first = await receiver();
    const second = await receiver();
    const approval = await client("approval");
    const asked = await send(approval, [{ data: { request: "deploy" } }], { push: { url: first.url } });
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await eventually(async () => first.received.length === 1);
    const waiting = notifiedTask(first.received[0]!);
    expect(waiting).toMatchObject({ id: asked.id, contextId: asked.contextId, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
    expect(JSON.stringify(waiting.status?.message?.parts)).toContain("approve deploy?");
    expect(first.received[0]!.headers["x-a2a-notification-token"]).toBeUndefined();
    expect(first.received[0]!.headers["authorization"]).toBeUndefined();

    const done = await send(approval, [{ text: "yes" }], {
      taskId: asked.id,
      contextId: asked.contextId,
      push: { url: second.url, token: "later" },
    });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await eventually(async () => first.received.length === 2 && second.received.length === 1);
    for (const notification of [first.received[1]!, second.received[0]!]) {
      const completed = notifiedTask(notification);
      expect(completed).toMatchObject({ id: asked.id, status: { state: TaskState.TASK_STATE_COMPLETED } });
      expect(JSON.stringify(completed.artifacts)).toContain('"decision":"yes"');
    }
    expect(second.received[0]!.headers["x-a2a-notification-token"]).toBe("later");
  });

  it("notifies FAILED and CANCELED tasks", async () => {
    const hook = await receiver();
    const failed = await send(await client("failing"), [{ text: "boom" }], { push: { url: hook.url } });
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const slow = await client("slow");
    const started = await send(slow, [{ data: { delayMs: 2000 } }], { push: { url: hook.url }, returnImmediately: true });
    await slow.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    await eventually(async () => hook.received.length === 2);
    const states = Object.fromEntries(hook.received.map((n) => notifiedTask(n)).map((t) => [t.id, t.status?.state]));
    expect(states).toEqual({ [failed.id]: TaskState.TASK_STATE_FAILED, [started.id]: TaskState.TASK_STATE_CANCELED });
  });

  it("retries a receiver that fails first (HTTP 500) until it takes the notification", async () => {
    const hook = await receiver(1);
    const task = await send(await client("echo"), [{ text: "retry" }], { push: { url: hook.url, token: "again" } });
    await eventually(async () => hook.received.length === 1);
    expect(hook.attempts()).toBe(2);
    expect(notifiedTask(hook.received[0]!).id).toBe(task.id);
    expect(hook.received[0]!.headers["x-a2a-notification-token"]).toBe("again");
  });

  it("config CRUD over JSON-RPC v1.0 and HTTP+JSON (official client); invalid URL -32602, unknown task -32001", async () => {
    const rest = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["HTTP+JSON"] }),
    ).createFromUrl(`${base}/a2a/echo/`);
    for (const echo of [await client("echo"), rest]) {
      const task = await send(echo, [{ text: "crud" }]);
      const config = (fields: Partial<{ id: string; url: string; token: string }>) => ({
        tenant: "",
        taskId: task.id,
        id: "",
        url: "https://example.com/hook",
        token: "",
        authentication: undefined,
        ...fields,
      });
      const generated = await echo.createTaskPushNotificationConfig(config({ token: "t" }));
      expect(generated).toMatchObject({ taskId: task.id, url: "https://example.com/hook", token: "t" });
      expect(generated.id).toMatch(/^[0-9a-f-]{36}$/);
      const fixed = await echo.createTaskPushNotificationConfig({
        ...config({ id: "fixed", url: "http://example.com/a" }),
        authentication: { scheme: "Basic", credentials: "dTpw" },
      });
      expect(fixed).toMatchObject({ id: "fixed", authentication: { scheme: "Basic", credentials: "dTpw" } });
      // Same id again replaces it.
      await echo.createTaskPushNotificationConfig(config({ id: "fixed", url: "http://example.com/b" }));
      expect(await echo.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "fixed" })).toMatchObject({
        id: "fixed",
        url: "http://example.com/b",
      });
      const listed = await echo.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
      expect(listed.configs.map((c) => c.id)).toEqual([generated.id, "fixed"]);
      if (echo !== rest) {
        // The SDK's REST client sends no page parameters; JSON-RPC does.
        const page = await echo.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 1, pageToken: "" });
        expect(page).toMatchObject({ configs: [{ id: generated.id }], nextPageToken: "1" });
      }

      await echo.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "fixed" });
      expect(
        (await echo.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs.map((c) => c.id),
      ).toEqual([generated.id]);
      expect([-32001, 404]).toContain(await rpcCode(echo.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "fixed" })));

      for (const url of ["not a url", "/relative/hook", "ftp://example.com/hook", ""]) {
        const code = await rpcCode(echo.createTaskPushNotificationConfig(config({ url })));
        expect([-32602, 400]).toContain(code);
      }
      const unknown = crypto.randomUUID();
      expect([-32001, 404]).toContain(await rpcCode(echo.createTaskPushNotificationConfig({ ...config({}), taskId: unknown })));
      expect([-32001, 404]).toContain(
        await rpcCode(echo.listTaskPushNotificationConfig({ tenant: "", taskId: unknown, pageSize: 0, pageToken: "" })),
      );
    }
  });

  it("HTTP+JSON status codes: POST 201, GET 200, DELETE 204, unknown task 404, invalid URL 400", async () => {
    const task = await send(await client("echo"), [{ text: "rest" }]);
    const headers = { "A2A-Version": "1.0", "Content-Type": "application/json" };
    const at = `${base}/a2a/echo/tasks/${task.id}/pushNotificationConfigs`;
    const created = await fetch(at, { method: "POST", headers, body: JSON.stringify({ id: "r1", url: "https://example.com/r" }) });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: "r1", taskId: task.id, url: "https://example.com/r" });
    expect(await (await fetch(at, { headers })).json()).toEqual({ configs: [{ id: "r1", taskId: task.id, url: "https://example.com/r" }] });
    expect((await fetch(`${at}/r1`, { headers })).status).toBe(200);
    expect((await fetch(`${at}/r1`, { method: "DELETE", headers })).status).toBe(204);
    expect((await fetch(`${at}/r1`, { headers })).status).toBe(404);
    expect((await fetch(`${base}/a2a/echo/tasks/${crypto.randomUUID()}/pushNotificationConfigs`, { headers })).status).toBe(404);
    expect((await fetch(at, { method: "POST", headers, body: JSON.stringify({ url: "mailto:me@example.com" }) })).status).toBe(400);
  });

  it("v0.3 JSON-RPC names (tasks/pushNotificationConfig/set|get|list|delete) reach the same configs", async () => {
    const rpc = async (method: string, params: unknown) =>
      (await (
        await fetch(`${base}/a2a/approval`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        })
      ).json()) as { result?: any; error?: { code: number } };
    const hook = await receiver();
    const task = await send(await client("approval"), [{ data: { request: "v03" } }]);
    const set = await rpc("tasks/pushNotificationConfig/set", {
      taskId: task.id,
      pushNotificationConfig: {
        id: "old",
        url: hook.url,
        token: "v03-token",
        authentication: { schemes: ["Bearer"], credentials: "v03-cred" },
      },
    });
    expect(set.result).toEqual({
      taskId: task.id,
      pushNotificationConfig: {
        id: "old",
        url: hook.url,
        token: "v03-token",
        authentication: { schemes: ["Bearer"], credentials: "v03-cred" },
      },
    });
    expect((await rpc("tasks/pushNotificationConfig/get", { id: task.id, pushNotificationConfigId: "old" })).result).toEqual(set.result);
    expect((await rpc("tasks/pushNotificationConfig/list", { id: task.id })).result).toEqual([set.result]);
    expect((await rpc("tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { url: "nope" } })).error?.code).toBe(
      -32602,
    );
    expect((await rpc("tasks/pushNotificationConfig/get", { id: crypto.randomUUID(), pushNotificationConfigId: "old" })).error?.code).toBe(
      -32001,
    );

    // A config set over v0.3 is notified like any other (here: the resume completes the task).
    await send(await client("approval"), [{ text: "ok" }], { taskId: task.id });
    await eventually(async () => hook.received.length === 1);
    expect(hook.received[0]!.headers["authorization"]).toBe("Bearer v03-cred");
    expect(notifiedTask(hook.received[0]!).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    expect((await rpc("tasks/pushNotificationConfig/delete", { id: task.id, pushNotificationConfigId: "old" })).result).toBeNull();
    expect((await rpc("tasks/pushNotificationConfig/list", { id: task.id })).result).toEqual([]);
  });

  it("a SendMessage with an invalid push URL is refused (-32602) before anything is created", async () => {
    const counts = async () => ({ threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 10_000 })).length });
    const before = await counts();
    const echo = await client("echo");
    expect(await rpcCode(send(echo, [{ text: "x" }], { push: { url: "localhost:9/hook" } }))).toBe(-32602);
    expect(
      await rpcCode(
        send(echo, [{ text: "x" }], { push: { url: "https://example.com", authentication: { scheme: "Bad Scheme", credentials: "c" } } }),
      ),
    ).toBe(-32602);
    expect(await counts()).toEqual(before);
  });
});
