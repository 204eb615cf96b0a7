import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListTasksRequest, SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { requestAuthenticator } from "@agent-server/agent-protocol";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, startA2AGrpcServer, type RunningA2AGrpcServer } from "../../index.js";
import { fetchCard, grpcClient, grpcClientFromCard, grpcFailure } from "../../../test/support/grpc-clients.js";
import { ownerAuth } from "../../../test/support/owner-auth.js";

/**
 * The gRPC binding behind the project's auth, the same handler the HTTP API runs (agent-protocol's
 * `requestAuthenticator`), reading the `authorization` metadata as it reads the header: the "resource
 * owner" setup of a2a-auth.test.ts. No credentials is UNAUTHENTICATED, a handler's 403 is
 * PERMISSION_DENIED with its message, and another user's task is not found.
 */
const UNAUTHENTICATED = 16;
const PERMISSION_DENIED = 7;

function message(parts: unknown[], ids: { taskId?: string; contextId?: string } = {}) {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts, ...ids } });
}

async function send(client: Client, parts: unknown[], ids: { taskId?: string; contextId?: string } = {}): Promise<Task> {
  const result = await client.sendMessage(message(parts, ids));
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

describe.each(drivers)("A2A gRPC with custom auth ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let grpc: RunningA2AGrpcServer;
  let base: string;

  beforeAll(async () => {
    opened = await driver.open();
    server = await startTestServer(opened.storage, {
      app: { auth: ownerAuth, extraRoutes: [(deps) => a2aRoutes(deps, { grpc: () => grpc })] },
    });
    base = server.url.replace(/\/$/, "");
    grpc = await startA2AGrpcServer(
      { engine: server.engine, storage: server.storage },
      { host: "127.0.0.1", port: 0, authenticate: requestAuthenticator(ownerAuth) },
    );
  });

  afterAll(async () => {
    await grpc?.close();
    await server?.close();
    await opened?.dispose();
  });

  it("a call without credentials, or with a token the handler refuses, is UNAUTHENTICATED with its message", async () => {
    const card = await fetchCard(base, "echo", "alice");
    for (const client of [await grpcClientFromCard(card), await grpcClientFromCard(card, "mallory")]) {
      const failure = await grpcFailure(client.sendMessage(message([{ text: "hi" }])));
      expect(failure.status).toBe(UNAUTHENTICATED);
      expect(failure.message).toContain("Invalid token");
      // Before anything else: not even an unknown assistant is revealed.
      expect((await grpcFailure(client.getTask({ tenant: "nope", id: "x" }))).status).toBe(UNAUTHENTICATED);
    }
    expect(await server.storage.threads.search({ limit: 10, offset: 0 })).toEqual([]);
  });

  it("scopes tasks to their owner: another user's task is not found, not listed, not cancelled, not continued", async () => {
    const alice = await grpcClient(base, "echo", "alice");
    const bob = await grpcClient(base, "echo", "bob");
    const task = await send(alice, [{ text: "mine" }]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await alice.getTask({ tenant: "", id: task.id })).id).toBe(task.id);
    expect((await grpcFailure(bob.getTask({ tenant: "", id: task.id }))).error).toBeInstanceOf(TaskNotFoundError);
    expect((await bob.listTasks(ListTasksRequest.fromJSON({}))).tasks.map((t) => t.id)).not.toContain(task.id);
    expect((await alice.listTasks(ListTasksRequest.fromJSON({}))).tasks.map((t) => t.id)).toContain(task.id);
    expect((await grpcFailure(bob.cancelTask({ tenant: "", id: task.id, metadata: undefined }))).error).toBeInstanceOf(TaskNotFoundError);
    await grpcFailure(bob.sendMessage(message([{ text: "intrude" }], { contextId: task.contextId })));
    expect(await server.storage.runs.search({ thread_id: task.contextId, limit: 10 })).toHaveLength(1);
  });

  it("a handler's 403 is PERMISSION_DENIED with its message, and the caller's identity reaches the graph", async () => {
    const carol = await grpcClient(base, "echo", "carol");
    const denied = await grpcFailure(carol.sendMessage(message([{ text: "hi" }])));
    expect(denied.status).toBe(PERMISSION_DENIED);
    expect(denied.message).toContain("carol may not start conversations");

    const whoami = await grpcClient(base, "whoami", "bob");
    const task = await send(whoami, [{ text: "who?" }]);
    const text = task.artifacts[0]!.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []));
    expect(text).toEqual(["bob"]);
  });
});
