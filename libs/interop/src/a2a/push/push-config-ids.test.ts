import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, type Task, type TaskPushNotificationConfig } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { errorCode } from "../../../test/support/a2a-clients.js";

/**
 * Push notification config ids by protocol version. v0.3 (raw JSON-RPC without `A2A-Version`, and the
 * SDK's v0.3 client): a config set without an id gets the task's id, and Get/Delete without a config id
 * mean that one (Get falls back to the task's oldest config); "default" names it too (the A2A TCK's
 * name for it). v1.0 (the SDK's client): a generated id, and Get/Delete without an id are -32602.
 */
let server: TestServer;
let dispose: () => Promise<void>;
let base: string;
let v1: A2AClient;
let legacy: LegacyJsonRpcTransport;

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  dispose = opened.dispose;
  server = await startTestServer(opened.storage, { app: { extraRoutes: [a2aRoutes] } });
  base = server.url.replace(/\/$/, "");
  v1 = await new ClientFactory().createFromUrl(`${base}/a2a/echo/`);
  legacy = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a/echo` });
});

afterAll(async () => {
  await server?.close();
  await dispose?.();
});

type RpcAnswer = { result?: any; error?: { code: number; message: string } };

/** A raw v0.3 JSON-RPC call (no A2A-Version header). */
async function v03(method: string, params: unknown): Promise<RpcAnswer> {
  const response = await fetch(`${base}/a2a/echo`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as RpcAnswer;
}

async function task(push?: { url: string; id?: string }): Promise<Task> {
  const sent = await v1.sendMessage(
    SendMessageRequest.fromJSON({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "ids" }] },
      ...(push ? { configuration: { taskPushNotificationConfig: push } } : {}),
    }),
  );
  return sent as Task;
}

function config(taskId: string, fields: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig {
  return { tenant: "", taskId, id: "", url: "https://example.com/hook", token: "", authentication: undefined, ...fields };
}

describe("push notification config ids, v0.3", () => {
  it("raw JSON-RPC: set without an id takes the task id; get and delete without a config id use it", async () => {
    const { id } = await task();
    const set = await v03("tasks/pushNotificationConfig/set", { taskId: id, pushNotificationConfig: { url: "https://example.com/a" } });
    expect(set.result).toEqual({ taskId: id, pushNotificationConfig: { id, url: "https://example.com/a" } });
    expect((await v03("tasks/pushNotificationConfig/get", { id })).result).toEqual(set.result);
    // The same (default) id again replaces the config.
    await v03("tasks/pushNotificationConfig/set", { taskId: id, pushNotificationConfig: { url: "https://example.com/b" } });
    expect((await v03("tasks/pushNotificationConfig/list", { id })).result).toEqual([
      { taskId: id, pushNotificationConfig: { id, url: "https://example.com/b" } },
    ]);
    // A config with its own id sits beside it; get without a config id still reads the task-id one.
    await v03("tasks/pushNotificationConfig/set", { taskId: id, pushNotificationConfig: { id: "own", url: "https://example.com/c" } });
    expect((await v03("tasks/pushNotificationConfig/get", { id })).result.pushNotificationConfig.url).toBe("https://example.com/b");
    expect((await v03("tasks/pushNotificationConfig/delete", { id })).result).toBeNull();
    expect((await v03("tasks/pushNotificationConfig/list", { id })).result.map((c: any) => c.pushNotificationConfig.id)).toEqual(["own"]);
    // Nothing under the task id any more: get without a config id returns one of the task's configs (the
    // oldest), as the v0.3 specification says; an unknown config id is not found.
    expect((await v03("tasks/pushNotificationConfig/get", { id })).result.pushNotificationConfig.id).toBe("own");
    expect((await v03("tasks/pushNotificationConfig/get", { id, pushNotificationConfigId: "nope" })).error?.code).toBe(-32001);
    expect((await v03("tasks/pushNotificationConfig/delete", { id, pushNotificationConfigId: "own" })).result).toBeNull();
    expect((await v03("tasks/pushNotificationConfig/get", { id })).error?.code).toBe(-32001);
    // The config stored over v0.3 under the task id is the same config over v1.0.
    await v03("tasks/pushNotificationConfig/set", { taskId: id, pushNotificationConfig: { url: "https://example.com/d" } });
    expect(await v1.getTaskPushNotificationConfig({ tenant: "", taskId: id, id })).toMatchObject({ id, url: "https://example.com/d" });
  });

  it('"default" names the config set without an id (the A2A TCK gets it so), unless a config has that id', async () => {
    const { id } = await task();
    await v03("tasks/pushNotificationConfig/set", { taskId: id, pushNotificationConfig: { url: "https://example.com/webhook" } });
    const got = await v03("tasks/pushNotificationConfig/get", { id, pushNotificationConfigId: "default" });
    expect(got.result).toEqual({ taskId: id, pushNotificationConfig: { id, url: "https://example.com/webhook" } });
    // A config whose own id is "default" wins over the alias, for get and for delete.
    await v03("tasks/pushNotificationConfig/set", {
      taskId: id,
      pushNotificationConfig: { id: "default", url: "https://example.com/own" },
    });
    const own = await v03("tasks/pushNotificationConfig/get", { id, pushNotificationConfigId: "default" });
    expect(own.result.pushNotificationConfig).toEqual({ id: "default", url: "https://example.com/own" });
    await v03("tasks/pushNotificationConfig/delete", { id, pushNotificationConfigId: "default" });
    expect((await v03("tasks/pushNotificationConfig/list", { id })).result.map((c: any) => c.pushNotificationConfig.id)).toEqual([id]);
    // Then "default" is the task-id config again, and deleting it by that name deletes it.
    await v03("tasks/pushNotificationConfig/delete", { id, pushNotificationConfigId: "default" });
    expect((await v03("tasks/pushNotificationConfig/list", { id })).result).toEqual([]);
    expect((await v03("tasks/pushNotificationConfig/get", { id, pushNotificationConfigId: "default" })).error?.code).toBe(-32001);
    // v1.0 has no alias: "default" is a config id like any other.
    await v03("tasks/pushNotificationConfig/set", { taskId: id, pushNotificationConfig: { url: "https://example.com/again" } });
    expect(await errorCode(v1.getTaskPushNotificationConfig({ tenant: "", taskId: id, id: "default" }))).toBe(-32001);
  });

  it("the SDK's v0.3 client: create without an id, then get and delete with an empty id", async () => {
    const { id } = await task();
    const created = await legacy.createTaskPushNotificationConfig(config(id));
    expect(created).toMatchObject({ taskId: id, id, url: "https://example.com/hook" });
    expect(await legacy.getTaskPushNotificationConfig({ tenant: "", taskId: id, id: "" })).toMatchObject({
      id,
      url: "https://example.com/hook",
    });
    await legacy.deleteTaskPushNotificationConfig({ tenant: "", taskId: id, id: "" });
    expect((await legacy.listTaskPushNotificationConfig({ tenant: "", taskId: id, pageSize: 0, pageToken: "" })).configs).toEqual([]);
  });

  it("message/send with configuration.pushNotificationConfig without an id registers it under the new task's id", async () => {
    const sent = await v03("message/send", {
      message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hook me" }] },
      configuration: { pushNotificationConfig: { url: "https://example.com/sent" } },
    });
    const id = sent.result.id as string;
    expect((await v03("tasks/pushNotificationConfig/get", { id })).result).toEqual({
      taskId: id,
      pushNotificationConfig: { id, url: "https://example.com/sent" },
    });
  });
});

describe("push notification config ids, v1.0", () => {
  it("create without an id gets a generated id; get and delete without an id are invalid params (-32602)", async () => {
    const { id } = await task();
    const created = await v1.createTaskPushNotificationConfig(config(id));
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.id).not.toBe(id);
    expect(await errorCode(v1.getTaskPushNotificationConfig({ tenant: "", taskId: id, id: "" }))).toBe(-32602);
    expect(await errorCode(v1.deleteTaskPushNotificationConfig({ tenant: "", taskId: id, id: "" }))).toBe(-32602);
    // Nothing was deleted; the task id is not a config id under v1.0.
    expect((await v1.listTaskPushNotificationConfig({ tenant: "", taskId: id, pageSize: 0, pageToken: "" })).configs).toHaveLength(1);
    expect(await errorCode(v1.getTaskPushNotificationConfig({ tenant: "", taskId: id, id }))).toBe(-32001);
    expect(await v1.getTaskPushNotificationConfig({ tenant: "", taskId: id, id: created.id })).toMatchObject({
      url: "https://example.com/hook",
    });
  });

  it("SendMessage with a config without an id: a generated id, not the task's", async () => {
    const sent = await task({ url: "https://example.com/sent" });
    const { configs } = await v1.listTaskPushNotificationConfig({ tenant: "", taskId: sent.id, pageSize: 0, pageToken: "" });
    expect(configs).toHaveLength(1);
    expect(configs[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(configs[0]!.id).not.toBe(sent.id);
  });
});
