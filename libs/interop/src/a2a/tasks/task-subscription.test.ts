import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCard, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, startA2AGrpcServer, type RunningA2AGrpcServer } from "../../index.js";
import { sendTask } from "../../../test/support/a2a-clients.js";
import { TASK_RUN_POLL_MS } from "./task-moves.js";

/**
 * SubscribeToTask on a task waiting for input (INPUT_REQUIRED) stays open and follows the task until it
 * is terminal (A2A v1.0 section 3.1.6): the run a later message with its taskId admits — in this process
 * or another over the same database — and a cancel that ends the wait. Through the official client over
 * JSON-RPC, HTTP+JSON and gRPC, on every driver; a subscriber that leaves stops the wait's reads.
 */
type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/** `storage` counting the task reads a waiting subscriber makes (`findTask`: getTask, else latestContinuation). */
function countingTaskReads(storage: Storage): { storage: Storage; reads(): number } {
  let reads = 0;
  const runs = new Proxy(storage.runs, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if ((property === "getTask" || property === "latestContinuation") && typeof value === "function") {
        return (...args: unknown[]) => {
          reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value;
    },
  });
  const counted = new Proxy(storage, {
    get: (target, property, receiver) => (property === "runs" ? runs : Reflect.get(target, property, receiver)),
  });
  return { storage: counted, reads: () => reads };
}

async function clientOver(binding: Binding, base: string, assistant: string): Promise<Client> {
  const card = AgentCard.fromJSON(await (await fetch(`${base}/a2a/${assistant}/.well-known/agent-card.json`)).json());
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
      preferredTransports: [binding],
    }),
  );
  const client = await factory.createFromAgentCard(card);
  expect(client.transport.protocolName).toBe(binding);
  return client;
}

const stateOf = (event: StreamResponse): TaskState | undefined =>
  event.payload?.$case === "task"
    ? event.payload.value.status?.state
    : event.payload?.$case === "statusUpdate"
      ? event.payload.value.status?.state
      : undefined;

async function rest(iterator: AsyncIterator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) events.push(next.value);
  return events;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(drivers)("SubscribeToTask across input-required ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let grpc: RunningA2AGrpcServer;
  let base: string;
  let reads: () => number;

  beforeAll(async () => {
    opened = await driver.open();
    const counted = countingTaskReads(opened.storage);
    reads = counted.reads;
    const bound: { grpc?: RunningA2AGrpcServer } = {};
    server = await startTestServer(counted.storage, { app: { extraRoutes: [(deps) => a2aRoutes(deps, { grpc: () => bound.grpc })] } });
    grpc = await startA2AGrpcServer({ engine: server.engine, storage: counted.storage }, { host: "127.0.0.1", port: 0 });
    bound.grpc = grpc;
    base = server.url.replace(/\/$/, "");
  });

  afterAll(async () => {
    await grpc?.close();
    await server?.close();
    await opened?.dispose();
  });

  it.each(BINDINGS)("over %s: subscribed while INPUT_REQUIRED, follows the resume to COMPLETED, then closes", async (binding) => {
    const client = await clientOver(binding, base, "approval");
    const asked = await sendTask(client, [{ data: { request: "deploy" } }]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const iterator = client.resubscribeTask({ tenant: "", id: asked.id })[Symbol.asyncIterator]();
    const snapshot = await iterator.next();
    expect(snapshot.value?.payload?.$case).toBe("task");
    expect(stateOf(snapshot.value!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const done = await sendTask(client, [{ text: "yes" }], { taskId: asked.id, contextId: asked.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const followed = await rest(iterator);
    expect(followed.map((e) => e.payload?.$case)).toEqual(["statusUpdate", "artifactUpdate", "statusUpdate"]);
    expect(followed.map(stateOf).filter((s) => s !== undefined)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    for (const event of followed) expect(event.payload?.value).toMatchObject({ taskId: asked.id, contextId: asked.contextId });
    // What the subscriber keeps is what GetTask returns.
    const artifact = followed[1]!.payload?.$case === "artifactUpdate" ? followed[1]!.payload.value.artifact : undefined;
    expect([artifact]).toEqual((await client.getTask({ tenant: "", id: asked.id })).artifacts);
  });

  it("follows a continuation admitted by another server over the same database (found by polling)", async () => {
    const other = await startTestServer(await opened.connect(), { app: { extraRoutes: [a2aRoutes] } });
    try {
      const here = await clientOver("JSONRPC", base, "approval");
      const there = await clientOver("HTTP+JSON", other.url.replace(/\/$/, ""), "approval");
      const asked = await sendTask(here, [{ data: { request: "elsewhere" } }]);
      const iterator = here.resubscribeTask({ tenant: "", id: asked.id })[Symbol.asyncIterator]();
      expect(stateOf((await iterator.next()).value!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const done = await sendTask(there, [{ text: "ok" }], { taskId: asked.id });
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const followed = await rest(iterator);
      expect(followed.map(stateOf).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await other.close();
    }
  });

  it.each(BINDINGS)("over %s: cancelling the waiting task ends the subscription with CANCELED", async (binding) => {
    const client = await clientOver(binding, base, "approval");
    const asked = await sendTask(client, [{ data: { request: "never" } }]);
    const iterator = client.resubscribeTask({ tenant: "", id: asked.id })[Symbol.asyncIterator]();
    expect(stateOf((await iterator.next()).value!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled: Task = await client.cancelTask({ tenant: "", id: asked.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const followed = await rest(iterator);
    expect(followed.map(stateOf)).toEqual([TaskState.TASK_STATE_CANCELED]);
  });

  it("a subscription that starts while the run works follows it into INPUT_REQUIRED and on to COMPLETED", async () => {
    const client = await clientOver("JSONRPC", base, "chat");
    // "ask ..." stops at interrupt() at once: the subscription starts while the run works or once it
    // waits, and either way goes on to COMPLETED with the resume.
    const asked = await sendTask(client, [{ text: "ask me" }], { returnImmediately: true });
    const iterator = client.resubscribeTask({ tenant: "", id: asked.id })[Symbol.asyncIterator]();
    const seen: StreamResponse[] = [];
    for (;;) {
      const next = await iterator.next();
      expect(next.done).toBe(false);
      seen.push(next.value!);
      if (stateOf(next.value!) === TaskState.TASK_STATE_INPUT_REQUIRED) break;
    }
    expect(seen[0]!.payload?.$case).toBe("task");
    await sendTask(client, [{ text: "the sea" }], { taskId: asked.id });
    const followed = await rest(iterator);
    expect(followed.map(stateOf).filter((s) => s !== undefined)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
  });

  // How a subscriber leaves is the transports' (the HTTP request's signal, the gRPC call's cancellation),
  // not the driver's: defined for one driver only, as it takes a few poll intervals.
  if (driver.name === "memory")
    it.each(["JSONRPC", "GRPC"] as const)("over %s: a subscriber that leaves while the task waits stops reading it", async (binding) => {
      const client = await clientOver(binding, base, "approval");
      const asked = await sendTask(client, [{ data: { request: "abandoned" } }]);
      const leave = new AbortController();
      const iterator = client.resubscribeTask({ tenant: "", id: asked.id }, { signal: leave.signal })[Symbol.asyncIterator]();
      expect(stateOf((await iterator.next()).value!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      // Waiting: the task is read every poll interval.
      const before = reads();
      await sleep(TASK_RUN_POLL_MS * 1.5);
      expect(reads()).toBeGreaterThan(before);
      leave.abort();
      await iterator.next().catch(() => undefined);
      await sleep(TASK_RUN_POLL_MS / 2);
      const left = reads();
      await sleep(TASK_RUN_POLL_MS * 2);
      expect(reads()).toBe(left);
    });
});
