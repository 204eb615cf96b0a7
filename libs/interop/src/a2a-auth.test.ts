import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "./index.js";
import { clientAs } from "../test/support/a2a-clients.js";
import { ownerAuth } from "../test/support/owner-auth.js";

/**
 * A2A behind custom auth (the documented "resource owner" setup of auth-e2e.test.ts in agent-protocol):
 * tasks are scoped through their thread, so a second user cannot read another user's task; a handler's
 * denial (carol may not create threads) keeps its status and message.
 */
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

describe("A2A with custom auth", () => {
  it("requires authentication on the card and the endpoints", async () => {
    expect((await fetch(`${base}/a2a/echo/.well-known/agent-card.json`)).status).toBe(401);
    expect((await fetch(`${base}/a2a/echo`, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("a second user cannot GetTask another user's task (%s)", async (binding) => {
    const alice = await clientAs(base, "alice", binding);
    const bob = await clientAs(base, "bob", binding);
    const task = (await alice.sendMessage(
      SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "mine" }] } }),
    )) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await alice.getTask({ tenant: "", id: task.id })).id).toBe(task.id);
    await expect(bob.getTask({ tenant: "", id: task.id })).rejects.toThrow(/not found/i);
    // Nor list it, cancel it, or post into alice's context.
    const listed = await bob.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "", includeArtifacts: false } as never);
    expect(listed.tasks.map((t) => t.id)).not.toContain(task.id);
    await expect(bob.cancelTask({ tenant: "", id: task.id, metadata: undefined })).rejects.toThrow(/not found/i);
    await expect(
      bob.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId: task.contextId, parts: [{ text: "intrude" }] },
        }),
      ),
    ).rejects.toThrow();
    expect((await alice.getTask({ tenant: "", id: task.id })).artifacts).toEqual(task.artifacts);
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)(
    "knowing another user's input-required task id grants nothing: no read, continue, cancel or subscribe (%s)",
    async (binding) => {
      const alice = await clientAs(base, "alice", binding, "approval");
      const bob = await clientAs(base, "bob", binding, "approval");
      const message = (parts: unknown[], ids: { taskId?: string; contextId?: string } = {}) =>
        SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts, ...ids } });
      const asked = (await alice.sendMessage(message([{ data: { request: "deploy" } }]))) as Task;
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      await expect(bob.getTask({ tenant: "", id: asked.id })).rejects.toThrow(/not found/i);
      // Lineage is private: naming the task (with or without its context) does not let bob resume it.
      await expect(bob.sendMessage(message([{ text: "yes" }], { taskId: asked.id }))).rejects.toThrow(/not found/i);
      await expect(bob.sendMessage(message([{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId }))).rejects.toThrow();
      await expect(bob.cancelTask({ tenant: "", id: asked.id, metadata: undefined })).rejects.toThrow(/not found/i);
      const subscribe = async () => {
        for await (const _event of bob.resubscribeTask({ tenant: "", id: asked.id })) void _event;
      };
      await expect(subscribe()).rejects.toThrow(/not found/i);

      // None of that touched alice's task: it still waits for her, and her answer completes it.
      const thread = await server.storage.runs.search({ thread_id: asked.contextId, limit: 100 });
      expect(thread).toHaveLength(1);
      expect((await alice.getTask({ tenant: "", id: asked.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const done = (await alice.sendMessage(message([{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId }))) as Task;
      expect(done.id).toBe(asked.id);
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    },
  );

  it("scopes v0.3 JSON-RPC the same way", async () => {
    const rpc = async (token: string, body: unknown) =>
      (
        await fetch(`${base}/a2a/echo`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        })
      ).json() as Promise<{ result?: { id: string }; error?: { code: number } }>;
    const sent = await rpc("alice", {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "v03" }] } },
    });
    expect(sent.result?.id).toBeTruthy();
    expect((await rpc("alice", { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: sent.result!.id } })).result?.id).toBe(
      sent.result!.id,
    );
    expect((await rpc("bob", { jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: sent.result!.id } })).error?.code).toBe(-32001);
  });

  it("a handler's denial answers its own status and message in every binding, not an internal error", async () => {
    const before = await server.storage.threads.count({});
    const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] };
    const headers = { "content-type": "application/json", authorization: "Bearer carol" };
    const post = async (path: string, body: unknown, version?: string) => {
      const response = await fetch(`${base}/a2a/echo${path}`, {
        method: "POST",
        headers: { ...headers, ...(version ? { "A2A-Version": version } : {}) },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const v10 = await post("", { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } }, "1.0");
    expect(v10).toEqual({
      status: 403,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "carol may not start conversations" } },
    });
    const legacyMessage = { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hi" }] };
    const v03 = await post("", { jsonrpc: "2.0", id: 2, method: "message/send", params: { message: legacyMessage } });
    expect(v03.status).toBe(403);
    expect(v03.body.error).toEqual({ code: -32600, message: "carol may not start conversations" });
    const rest = await post("/message:send", { message }, "1.0");
    expect(rest).toEqual({
      status: 403,
      body: { error: { code: 403, status: "PERMISSION_DENIED", message: "carol may not start conversations", details: [] } },
    });
    expect(await server.storage.threads.count({})).toBe(before);
  });
});
