import { describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { ttlOptions, type TtlOptions } from "@agent-server/engine";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "./index.js";

/**
 * TTL sweeps end to end (issue 29): langgraph.json `checkpointer.ttl` / `store.ttl` as the server reads
 * them, threads and items given a TTL through the official SDK, swept by the engine's interval or by
 * one round called here; an A2A task's durable result survives `keep_latest`; two engines over one
 * database never sweep the same thread or item twice. TTLs are fractions of a minute (0.002 = 120 ms).
 */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds (the sweep's interval does the work), failing after `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not reached in time");
    await sleep(50);
  }
}

function serverTtl(config: Parameters<typeof ttlOptions>[0]): TtlOptions {
  return ttlOptions(config);
}

async function start(storage: Storage, ttl: TtlOptions): Promise<TestServer> {
  return startTestServer(storage, { engine: { ttl }, app: { extraRoutes: [a2aRoutes] } });
}

async function send(client: A2AClient, text: string, contextId = ""): Promise<Task> {
  const result = await client.sendMessage(
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, parts: [{ text }] } }),
  );
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

const textOf = (task: Task) => task.artifacts[0]?.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []));
/** `minutes` from now: a sweep round's clock, moved instead of sleeping. */
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe.each(drivers)("TTL sweeps ($name)", (driver) => {
  it("a thread created with ttl through the SDK, and a store item put with ttl, are swept on the interval; others stay", async () => {
    const opened = await driver.open();
    const server = await start(
      opened.storage,
      serverTtl({ checkpointer: { ttl: { sweep_interval_minutes: 0.002 } }, store: { ttl: { sweep_interval_minutes: 0.002 } } }),
    );
    try {
      const { client } = server;
      const doomed = await client.threads.create({ ttl: 0.005 }); // 300 ms, the SDK sends { ttl, strategy: "delete" }
      const kept = await client.threads.create();
      await client.runs.wait(doomed.thread_id, "echo", { input: { messages: [{ role: "user", content: "hi" }] } });
      await client.store.putItem(["ttl"], "short", { v: 1 }, { ttl: 0.005 });
      await client.store.putItem(["ttl"], "kept", { v: 2 });

      await eventually(async () => (await server.storage.threads.get(doomed.thread_id)) === null);
      await expect(client.threads.get(doomed.thread_id)).rejects.toThrow(/404/);
      expect(await client.runs.list(kept.thread_id)).toEqual([]);
      expect((await client.threads.get(kept.thread_id)).thread_id).toBe(kept.thread_id);
      // Gone for reads the moment it expires; removed by the store's sweep.
      await eventually(async () => (await client.store.getItem(["ttl"], "short")) === null);
      await eventually(async () => (await server.storage.store.sweepExpired!(new Date(Date.now() + 60_000).toISOString(), 10)) === 0);
      expect((await client.store.searchItems(["ttl"])).items.map((i) => i.key)).toEqual(["kept"]);
    } finally {
      await server.close();
      await opened.dispose();
    }
  });

  it("keep_latest trims an A2A context's thread to its latest checkpoint; GetTask still returns the first task's artifact", async () => {
    const opened = await driver.open();
    // The default TTL applies to the thread A2A creates for a new context; rounds are called here.
    const server = await start(opened.storage, serverTtl({ checkpointer: { ttl: { strategy: "keep_latest", default_ttl: 1 } } }));
    try {
      const a2a = await new ClientFactory().createFromUrl(`${server.url.replace(/\/$/, "")}/a2a/echo/`);
      const first = await send(a2a, "first");
      const second = await send(a2a, "second", first.contextId);
      expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const threadId = first.contextId;
      expect((await server.client.threads.getHistory(threadId, { limit: 100 })).length).toBeGreaterThan(1);

      const later = inMinutes(2); // past the thread's TTL of 1 minute
      expect(await server.engine.sweeper.sweepThreads(new Date().toISOString())).toEqual({});
      expect(await server.engine.sweeper.sweepThreads(later)).toEqual({ thread_trimmed: 1 });
      expect(await server.engine.sweeper.sweepThreads(later)).toEqual({}); // its clock restarted

      expect((await server.client.threads.getHistory(threadId, { limit: 100 })).length).toBe(1);
      expect((await server.client.threads.get(threadId)).thread_id).toBe(threadId);
      const task = await a2a.getTask({ tenant: "", id: first.id });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(task)).toEqual(textOf(first));
      expect(textOf(task)).toEqual(["echo: first"]);
      // The context goes on from the kept checkpoint.
      const third = await send(a2a, "third", threadId);
      expect(textOf(third)).toEqual(["echo: third"]);
    } finally {
      await server.close();
      await opened.dispose();
    }
  });

  it("two engines over one database sweep each expired thread and item once", async () => {
    const opened = await driver.open();
    const ttl = serverTtl({ checkpointer: { ttl: { sweep_limit: 1000 } } });
    const one = await start(opened.storage, ttl);
    const two = await start(await opened.connect(), ttl);
    try {
      const threads = [];
      for (let i = 0; i < 8; i++) {
        // The SDK 1.15 type names only "delete"; the official server, and this one, take "keep_latest" too.
        const ttl = { ttl: 1, strategy: i % 2 ? "delete" : "keep_latest" } as { ttl: number; strategy: "delete" };
        threads.push(await one.client.threads.create({ ttl }));
      }
      for (let i = 0; i < 20; i++) await one.client.store.putItem(["ttl", "race"], `k${i}`, { i }, { ttl: 1 });
      const later = inMinutes(2);
      const [a, b] = await Promise.all([one.engine.sweeper.sweepThreads(later), two.engine.sweeper.sweepThreads(later)]);
      expect((a.thread_deleted ?? 0) + (b.thread_deleted ?? 0)).toBe(4);
      expect((a.thread_trimmed ?? 0) + (b.thread_trimmed ?? 0)).toBe(4);
      const [x, y] = await Promise.all([one.engine.sweeper.sweepStore(later), two.engine.sweeper.sweepStore(later)]);
      expect(x + y).toBe(20);
      for (const [i, thread] of threads.entries()) {
        expect(await one.storage.threads.get(thread.thread_id)).toEqual(
          i % 2 ? null : expect.objectContaining({ thread_id: thread.thread_id }),
        );
      }
    } finally {
      await two.close();
      await one.close();
      await opened.dispose();
    }
  });

  it("refuses a bad ttl or refresh_ttl with 422 naming the field", async () => {
    const opened = await driver.open();
    const server = await start(opened.storage, serverTtl({}));
    try {
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${server.url}${path}`, {
          method,
          headers: { "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const cases: [string, string, unknown][] = [
        ["POST", "/threads", { ttl: { ttl: -1 } }],
        ["POST", "/threads", { ttl: { ttl: 5, strategy: "archive" } }],
        ["POST", "/threads", { ttl: "soon" }],
        ["PATCH", `/threads/${(await server.client.threads.create()).thread_id}`, { ttl: { ttl: 0 } }],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: {}, ttl: "5" }],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: {}, ttl: 0 }],
        ["POST", "/store/items/search", { refresh_ttl: "yes" }],
        ["GET", "/store/items?namespace=a&key=k&refresh_ttl=maybe", undefined],
      ];
      for (const [method, path, body] of cases) {
        const response = await call(method, path, body);
        expect([method, path, response.status]).toEqual([method, path, 422]);
        expect(JSON.stringify(await response.json())).toMatch(/ttl/);
      }
    } finally {
      await server.close();
      await opened.dispose();
    }
  });
});
