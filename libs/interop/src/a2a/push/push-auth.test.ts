import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { eventually } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { a2aRoutes } from "../../index.js";
import { clientAs, errorCode as code } from "../../../test/support/a2a-clients.js";
import { startReceiver } from "../../../test/support/push-receiver.js";

/**
 * Push notification configs behind custom auth (scoped through the task's thread like every task
 * operation: read needs threads:read, create/delete threads:update), and on a driver without
 * `pushConfigs` (PushNotificationNotSupported, card false).
 */
const ownerAuth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob", "carol"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [] };
  })
  .on("threads:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  // carol (an auditor) may read every thread, but change only her own.
  .on("threads:read", ({ user }) => (user.identity === "carol" ? undefined : { owner: user.identity }))
  .on("threads", ({ user }) => ({ owner: user.identity }));

function message(parts: unknown[], options: { taskId?: string; push?: { url: string } } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId: options.taskId ?? "", parts },
    ...(options.push ? { configuration: { taskPushNotificationConfig: options.push } } : {}),
  });
}

describe("A2A push configs with custom auth", () => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  let base: string;

  beforeAll(async () => {
    const opened = await drivers.find((d) => d.name === "sqlite")!.open();
    dispose = opened.dispose;
    server = await startTestServer(opened.storage, { app: { auth: ownerAuth, extraRoutes: [a2aRoutes] } });
    base = server.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    await server?.close();
    await dispose?.();
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)(
    "another user can neither list, read, create nor delete configs of someone else's task (%s)",
    async (binding) => {
      const notFound = binding === "JSONRPC" ? -32001 : 404;
      const hook = await startReceiver();
      try {
        const alice = await clientAs(base, "alice", binding);
        const bob = await clientAs(base, "bob", binding);
        const task = (await alice.sendMessage(message([{ text: "mine" }], { push: { url: hook.url } }))) as Task;
        expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        const [config] = (await alice.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs;
        expect(config).toMatchObject({ url: hook.url });

        const ref = { tenant: "", taskId: task.id, id: config!.id };
        expect(await code(bob.listTaskPushNotificationConfig({ ...ref, pageSize: 0, pageToken: "" }))).toBe(notFound);
        expect(await code(bob.getTaskPushNotificationConfig(ref))).toBe(notFound);
        expect(
          await code(
            bob.createTaskPushNotificationConfig({
              ...ref,
              id: "",
              url: "https://bob.example/steal",
              token: "",
              authentication: undefined,
            }),
          ),
        ).toBe(notFound);
        expect(await code(bob.deleteTaskPushNotificationConfig(ref))).toBe(notFound);

        // carol may read alice's thread, so she may read its configs, but not change them.
        const carol = await clientAs(base, "carol", binding);
        expect(await carol.getTaskPushNotificationConfig(ref)).toMatchObject({ id: config!.id, url: hook.url });
        expect(
          await code(
            carol.createTaskPushNotificationConfig({ ...ref, id: "", url: "https://carol.example/", token: "", authentication: undefined }),
          ),
        ).toBe(notFound);
        expect(await code(carol.deleteTaskPushNotificationConfig(ref))).toBe(notFound);

        // Nothing changed; alice still manages her own.
        const after = await alice.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
        expect(after.configs).toEqual([config]);
        await alice.deleteTaskPushNotificationConfig(ref);
        expect((await alice.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs).toEqual(
          [],
        );
        await eventually(async () => hook.received.length === 1);
      } finally {
        await hook.close();
      }
    },
  );

  it("a continuation carrying a push config needs update on the task; v0.3 names are scoped the same way", async () => {
    const alice = await clientAs(base, "alice", "JSONRPC", "approval");
    const bob = await clientAs(base, "bob", "JSONRPC", "approval");
    const carol = await clientAs(base, "carol", "JSONRPC", "approval");
    const asked = (await alice.sendMessage(message([{ data: { request: "deploy" } }]))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(await code(bob.sendMessage(message([{ text: "yes" }], { taskId: asked.id, push: { url: "https://bob.example/" } })))).toBe(
      -32001,
    );
    expect(await code(carol.sendMessage(message([{ text: "yes" }], { taskId: asked.id, push: { url: "https://carol.example/" } })))).toBe(
      -32001,
    );
    expect((await server.storage.runs.search({ thread_id: asked.contextId, limit: 10 })).length).toBe(1);

    const rpc = async (token: string, method: string, params: unknown) =>
      (await (
        await fetch(`${base}/a2a/approval`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        })
      ).json()) as { result?: unknown; error?: { code: number } };
    const set = { taskId: asked.id, pushNotificationConfig: { id: "v03", url: "https://alice.example/" } };
    expect((await rpc("bob", "tasks/pushNotificationConfig/set", set)).error?.code).toBe(-32001);
    expect((await rpc("alice", "tasks/pushNotificationConfig/set", set)).result).toMatchObject(set);
    expect((await rpc("bob", "tasks/pushNotificationConfig/list", { id: asked.id })).error?.code).toBe(-32001);
    expect((await rpc("bob", "tasks/pushNotificationConfig/delete", { id: asked.id, pushNotificationConfigId: "v03" })).error?.code).toBe(
      -32001,
    );
    expect((await rpc("alice", "tasks/pushNotificationConfig/list", { id: asked.id })).result).toEqual([set]);
  });
});

describe("A2A push on a driver without pushConfigs", () => {
  let server: TestServer;
  let storage: Storage;
  let base: string;

  beforeAll(async () => {
    // The memory driver, minus its push config repo (a custom driver that does not implement it).
    storage = Object.create(createMemoryStorage(), { pushConfigs: { value: undefined } }) as Storage;
    server = await startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
    base = server.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    await server?.close();
    await storage?.close();
  });

  it("answers PushNotificationNotSupported (-32003) everywhere, creates nothing, and the card says false", async () => {
    const card = (await (await fetch(`${base}/a2a/echo/.well-known/agent-card.json`)).json()) as {
      capabilities: { pushNotifications?: boolean };
    };
    expect(card.capabilities.pushNotifications ?? false).toBe(false);

    const client = await new ClientFactory().createFromUrl(`${base}/a2a/echo/`);
    const task = (await client.sendMessage(message([{ text: "plain" }]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const runs = (await storage.runs.search({ limit: 10_000 })).length;
    expect(await code(client.sendMessage(message([{ text: "push" }], { push: { url: "https://example.com/" } })))).toBe(-32003);
    expect((await storage.runs.search({ limit: 10_000 })).length).toBe(runs);

    const rpc = async (method: string, params: unknown, version?: string) =>
      (await (
        await fetch(`${base}/a2a/echo`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...(version ? { "A2A-Version": version } : {}) },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        })
      ).json()) as { error?: { code: number } };
    const ref = { taskId: task.id, id: "c1" };
    for (const [method, params] of [
      ["CreateTaskPushNotificationConfig", { ...ref, url: "https://example.com/" }],
      ["GetTaskPushNotificationConfig", ref],
      ["ListTaskPushNotificationConfigs", { taskId: task.id }],
      ["DeleteTaskPushNotificationConfig", ref],
    ] as const) {
      expect((await rpc(method, params, "1.0")).error?.code, method).toBe(-32003);
    }
    expect(
      (await rpc("tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { url: "https://example.com/" } })).error
        ?.code,
    ).toBe(-32003);
    expect((await rpc("tasks/pushNotificationConfig/list", { id: task.id })).error?.code).toBe(-32003);

    const rest = await fetch(`${base}/a2a/echo/tasks/${task.id}/pushNotificationConfigs`, {
      method: "POST",
      headers: { "A2A-Version": "1.0", "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/" }),
    });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { status: string } }).error.status).toBe("FAILED_PRECONDITION");
    expect((await fetch(`${base}/a2a/echo/tasks/${task.id}/pushNotificationConfigs`, { headers: { "A2A-Version": "1.0" } })).status).toBe(
      400,
    );
  });
});
