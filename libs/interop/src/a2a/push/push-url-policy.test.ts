import { afterEach, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Delivery } from "@agent-server/core";
import { outboundUrlPolicy, type ServerMode } from "@agent-server/engine";
import { eventually } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { errorCode as rpcCode } from "../../../test/support/a2a-clients.js";
import { startReceiver, type TestReceiver } from "../../../test/support/push-receiver.js";

/**
 * The webhook URL policy applied to A2A push notification URLs: refused when a config is created
 * (JSON-RPC -32602, HTTP+JSON 400, nothing written) and again when a notification is sent. Real
 * HTTP on loopback, SQLite, the official @a2a-js/sdk client.
 */

const METADATA = ["http://169.254.169.254/latest/meta-data/", "http://2852039166/", "http://[::ffff:a9fe:a9fe]/"];

function message(parts: unknown[], options: { taskId?: string; contextId?: string; push?: { url: string } } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId: options.taskId ?? "", contextId: options.contextId ?? "", parts },
    ...(options.push ? { configuration: { taskPushNotificationConfig: options.push } } : {}),
  });
}

async function send(client: A2AClient, parts: unknown[], options: Parameters<typeof message>[1] = {}): Promise<Task> {
  const result = await client.sendMessage(message(parts, options));
  if (!("status" in result)) throw new Error("expected a task");
  return result;
}

describe("A2A push notification URLs under the webhook URL policy", () => {
  let server: TestServer | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const refused: { delivery: Delivery; reason: string }[] = [];

  afterEach(async () => {
    await server?.close();
    server = undefined;
    refused.length = 0;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(mode: ServerMode) {
    const opened = await drivers.find((driver) => driver.name === "sqlite")!.open();
    cleanups.push(opened.dispose);
    server = await startTestServer(opened.storage, {
      engine: {
        urlPolicy: outboundUrlPolicy(undefined, mode),
        outbox: { pollMs: 50, backoffMs: 50, maxBackoffMs: 200, maxAttempts: 5, timeoutMs: 2000 },
        logger: {
          runStarted: () => undefined,
          runEnded: () => undefined,
          deliveryRefused: (delivery, reason) => refused.push({ delivery, reason }),
        },
      },
      app: { extraRoutes: [a2aRoutes] },
    });
    const base = server.url.replace(/\/$/, "");
    const jsonRpc = await new ClientFactory().createFromUrl(`${base}/a2a/echo/`);
    const rest = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["HTTP+JSON"] }),
    ).createFromUrl(`${base}/a2a/echo/`);
    return { base, storage: opened.storage, jsonRpc, rest, approval: await new ClientFactory().createFromUrl(`${base}/a2a/approval/`) };
  }

  async function receiver(): Promise<TestReceiver> {
    const started = await startReceiver();
    cleanups.push(started.close);
    return started;
  }

  it("serve: loopback and metadata push URLs are refused when configured, nothing written", async () => {
    const { storage, jsonRpc, rest } = await start("serve");
    const hook = await receiver();
    const counts = async () => ({ threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 10_000 })).length });
    const before = await counts();
    for (const url of [...METADATA, hook.url, "http://localhost:9/hook", "http://192.168.0.10/hook"]) {
      expect(await rpcCode(send(jsonRpc, [{ text: "x" }], { push: { url } })), url).toBe(-32602);
    }
    expect(await counts()).toEqual(before);

    const task = await send(jsonRpc, [{ text: "configs" }]);
    for (const client of [jsonRpc, rest]) {
      for (const url of [...METADATA, hook.url]) {
        const config = { tenant: "", taskId: task.id, id: "", url, token: "", authentication: undefined };
        expect(await rpcCode(client.createTaskPushNotificationConfig(config)), url).toBe(client === rest ? 400 : -32602);
      }
    }
    expect(await storage.pushConfigs!.list(task.id)).toEqual([]);
    expect(hook.received).toEqual([]);
  });

  it("serve: a config that reached storage under a looser policy is refused when the notification is sent", async () => {
    const { storage, approval } = await start("serve");
    const hook = await receiver();
    const asked = await send(approval, [{ data: { request: "deploy" } }]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // As if written by `agent-server dev` over the same database.
    await storage.pushConfigs!.put({ run_id: asked.id, config_id: "from-dev", url: hook.url, token: null, authentication: null });
    const done = await send(approval, [{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [refusal] = await eventually(async () => (refused.length > 0 ? refused : undefined));
    expect(refusal.delivery).toMatchObject({ kind: "a2a_push", url: hook.url });
    expect(refusal.reason).toMatch(/^host 127\.0\.0\.1 is a loopback address$/);
    expect(await storage.deliveries.get(refusal.delivery.delivery_id)).toMatchObject({ status: "failed", attempts: 1, payload: null });
    expect(hook.received).toEqual([]);
  });

  it("dev: a loopback receiver is notified; metadata URLs are still refused", async () => {
    const { jsonRpc } = await start("dev");
    const hook = await receiver();
    const task = await send(jsonRpc, [{ text: "notify me" }], { push: { url: hook.url } });
    await eventually(async () => hook.received.length === 1);
    expect(hook.received[0]!.body).toContain(task.id);
    for (const url of METADATA) expect(await rpcCode(send(jsonRpc, [{ text: "x" }], { push: { url } })), url).toBe(-32602);
    expect(refused).toEqual([]);
  });
});
