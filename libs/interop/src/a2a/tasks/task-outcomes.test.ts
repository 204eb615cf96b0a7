import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Client as A2AClient } from "@a2a-js/sdk/client";
import { TaskNotCancelableError } from "@a2a-js/sdk/errors";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { RunStatus, Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { clientAs } from "../../../test/support/a2a-clients.js";

/**
 * How tasks end, over real HTTP with the official client in both v1.0 bindings: a failed run says what
 * failed (GetTask, ListTasks, streams, v0.3), and a cancel racing a completion — each interleaving forced
 * through a seam on `runs.transition`, the one compare-and-set both paths go through — renders as the
 * winner says.
 */

/** A transition held back until `until` settles; `reached` when it is attempted, `done` once written. */
interface HeldTransition {
  to: RunStatus;
  until: () => Promise<unknown>;
  reached: Deferred<string>;
  done: Deferred<void>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const held: HeldTransition[] = [];

/** Holds the next transition of any run to `to` until `until()` settles. */
function holdNext(to: RunStatus, until: () => Promise<unknown>): { reached: Promise<string>; done: Promise<void> } {
  const hold: HeldTransition = { to, until, reached: deferred(), done: deferred() };
  held.push(hold);
  return { reached: hold.reached.promise, done: hold.done.promise };
}

function withTransitionSeam(inner: Storage): Storage {
  const transition = inner.runs.transition.bind(inner.runs);
  const runs = new Proxy(inner.runs, {
    get(target, property, receiver) {
      // Without `settle` (result and status in one transaction) settlement records, then transitions: the
      // seam holds that transition, between a recorded result and the status, where a cancel can win.
      if (property === "settle") return undefined;
      if (property !== "transition") return Reflect.get(target, property, receiver);
      return async (runId: string, to: RunStatus, options?: { from?: readonly RunStatus[] }) => {
        const index = held.findIndex((h) => h.to === to);
        if (index < 0) return transition(runId, to, options);
        const [hold] = held.splice(index, 1);
        hold!.reached.resolve(runId);
        await hold!.until();
        try {
          return await transition(runId, to, options);
        } finally {
          hold!.done.resolve();
        }
      };
    },
  });
  return new Proxy(inner, { get: (target, property, receiver) => (property === "runs" ? runs : Reflect.get(target, property, receiver)) });
}

function request(parts: unknown[], options: { contextId?: string; returnImmediately?: boolean } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId: options.contextId ?? "", parts },
    ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

async function send(client: A2AClient, parts: unknown[], options: Parameters<typeof request>[1] = {}): Promise<Task> {
  const result = await client.sendMessage(request(parts, options));
  if (!("status" in result)) throw new Error("expected a task");
  return result;
}

/** TaskNotCancelable: -32002 in JSON-RPC, the binding's FAILED_PRECONDITION in HTTP+JSON. */
async function expectNotCancelable(pending: Promise<unknown>): Promise<void> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TaskNotCancelableError);
}

function statusText(task: Pick<Task, "status">): string | undefined {
  const part = task.status?.message?.parts[0]?.content;
  return part?.$case === "text" ? part.value : undefined;
}

describe.each(drivers.filter((d) => d.name !== "memory"))("A2A task outcomes ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let storage: Storage;
  let base: string;

  beforeAll(async () => {
    opened = await driver.open();
    storage = withTransitionSeam(opened.storage);
    server = await startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
    base = server.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    await server?.close();
    await opened?.dispose();
  });

  describe.each(["JSONRPC", "HTTP+JSON"] as const)("over %s", (binding) => {
    it("a failed run says what failed: GetTask, ListTasks, the stream, v0.3; still after later runs of its context and a prune", async () => {
      const failing = await clientAs(base, "none", binding, "failing");
      const failed = await send(failing, [{ text: "boom" }]);
      const said = "The run failed: Error: graph failed on purpose";
      expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(failed.status?.message?.role).toBe(2);
      expect(statusText(failed)).toBe(said);
      expect(statusText(await failing.getTask({ tenant: "", id: failed.id }))).toBe(said);
      const listed = await failing.listTasks({
        tenant: "",
        contextId: failed.contextId,
        status: TaskState.TASK_STATE_FAILED,
        pageToken: "",
        statusTimestampAfter: undefined,
      });
      expect(listed.tasks.map(statusText)).toEqual([said]);
      // No internals: no stack, no file paths.
      expect(JSON.stringify(failed)).not.toMatch(/\bat .*\.(ts|js):\d+/);

      const events: StreamResponse[] = [];
      for await (const event of failing.sendMessageStream(request([{ text: "again" }]))) events.push(event);
      const last = events.at(-1)!.payload as Extract<StreamResponse["payload"], { $case: "statusUpdate" }>;
      expect(last.value.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(statusText(last.value)).toBe(said);

      const legacy = await fetch(`${base}/a2a/failing`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: failed.id } }),
      });
      const v03 = (await legacy.json()) as { result: { status: { state: string; message: { role: string; parts: unknown[] } } } };
      expect(v03.result.status.state).toBe("failed");
      expect(v03.result.status.message).toMatchObject({ role: "agent", parts: [{ kind: "text", text: said }] });

      // The run keeps its own error: a later turn, a later successful run of the thread (which clears the
      // thread's error) and a keep_latest prune leave the task's explanation as it was.
      await send(failing, [{ text: "later" }], { contextId: failed.contextId });
      expect(statusText(await failing.getTask({ tenant: "", id: failed.id }))).toBe(said);
      await server.client.runs.wait(failed.contextId, "echo", { input: { messages: [{ role: "user", content: "hi" }] } });
      expect((await server.client.threads.get(failed.contextId)).error).toBeNull();
      expect(await server.client.threads.prune([failed.contextId], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
      const later = await failing.getTask({ tenant: "", id: failed.id });
      expect(later.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(statusText(later)).toBe(said);
    });

    it("cancel wins while the completion is settling: CancelTask answers CANCELED, no artifact, ever", async () => {
      const slow = await clientAs(base, "none", binding, "slow");
      const release = deferred<void>();
      const completion = holdNext("success", () => release.promise);
      const task = await send(slow, [{ data: { delayMs: 1 } }], { returnImmediately: true });
      // The graph finished and its result is recorded; settlement's terminal write waits.
      expect(await completion.reached).toBe(task.id);
      expect(await storage.runs.getResult!(task.id)).not.toBeNull();

      const cancelled = await slow.cancelTask({ tenant: "", id: task.id, metadata: undefined });
      expect(cancelled.id).toBe(task.id);
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(cancelled.artifacts).toEqual([]);

      release.resolve();
      await completion.done;
      await server.engine.waitRun(task.id);
      expect((await storage.runs.get(task.id))?.status).toBe("interrupted");
      const read = await slow.getTask({ tenant: "", id: task.id });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(read.artifacts).toEqual([]);
      await expectNotCancelable(slow.cancelTask({ tenant: "", id: task.id, metadata: undefined }));
    });

    it("completion wins while the cancel is in flight: COMPLETED with its artifact, CancelTask answers TaskNotCancelable", async () => {
      const slow = await clientAs(base, "none", binding, "slow");
      // Settlement's write waits for the cancel to reach its own write, which then waits for settlement's.
      const cancelling: { reached: Promise<string>; done: Promise<void> } = {
        reached: deferred<string>().promise,
        done: Promise.resolve(),
      };
      const completion = holdNext("success", () => cancelling.reached);
      Object.assign(
        cancelling,
        holdNext("interrupted", () => completion.done),
      );
      const task = await send(slow, [{ data: { delayMs: 1 } }], { returnImmediately: true });
      expect(await completion.reached).toBe(task.id);

      await expectNotCancelable(slow.cancelTask({ tenant: "", id: task.id, metadata: undefined }));
      expect(await cancelling.reached).toBe(task.id);
      await server.engine.waitRun(task.id);
      expect((await storage.runs.get(task.id))?.status).toBe("success");
      const read = await slow.getTask({ tenant: "", id: task.id });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const data = read.artifacts[0]?.parts.find((p) => p.content?.$case === "data")?.content;
      expect(data).toMatchObject({ value: { steps: [1, 2] } });
    });
  });
});
