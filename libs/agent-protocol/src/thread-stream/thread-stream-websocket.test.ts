import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { EventRepo, Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { httpDrivers, openServer } from "../../test/support/http.js";
import { ok, RawSocket, readSse, rootLifecycle, says, sleep, terminals, type WireEvent } from "../../test/support/thread-stream.js";

/**
 * The thread streaming protocol over a WebSocket (`GET /threads/{id}/stream/events`): the official SDK's
 * `ThreadStream` on its WebSocket transport (Node has no global WebSocket: `ws` is passed as the
 * factory), and raw frames for subscriptions, unsubscribe and `subscription.reconnect`.
 */

const memory = drivers.find((d) => d.name === "memory")!;
const webSocketFactory = (url: string) => new WebSocket(url) as unknown as globalThis.WebSocket;

const aiText = (values: unknown) =>
  ((values as { messages?: Array<{ content: unknown; getType?: () => string; type?: string }> }).messages ?? [])
    .filter((m) => (m.getType?.() ?? m.type) === "ai")
    .map((m) => String(m.content));

/** Runs `assistant` on the thread over HTTP commands and waits until the thread's log shows `runs` ends. */
async function runOver(server: TestServer, threadId: string, assistant: string, input: unknown, runs: number): Promise<WireEvent[]> {
  await ok(server.url, threadId, "run.start", { assistant_id: assistant, input });
  return (await readSse(server.url, threadId, { channels: ["lifecycle", "values"] }, terminals(runs))).events;
}

describe("ThreadStream over a WebSocket (official SDK)", () => {
  let server: TestServer;
  beforeAll(async () => (server = await openServer(memory)));
  afterAll(() => server.close());

  it("starts a run on a new thread, streams its values, and answers state.get over the socket", async () => {
    const threadId = crypto.randomUUID();
    const thread = server.client.threads.stream(threadId, { assistantId: "slow", transport: "websocket", webSocketFactory });
    try {
      const snapshots: unknown[] = [];
      const reading = (async () => {
        for await (const values of thread.values) snapshots.push(values);
      })();
      const { run_id } = (await thread.run.start({ input: { delayMs: 300 } })) as { run_id?: string };
      expect(run_id).toEqual(expect.any(String));
      expect(await thread.output).toEqual({ delayMs: 300, steps: [1, 2] });
      await reading;
      expect(snapshots).toEqual([
        { delayMs: 300, steps: [] },
        { delayMs: 300, steps: [1] },
        { delayMs: 300, steps: [1, 2] },
      ]);
      const state = (await thread.state.get({ namespace: [] })) as { values: unknown; checkpoint?: { id: string } };
      expect(state.values).toEqual({ delayMs: 300, steps: [1, 2] });
      expect(state.checkpoint?.id).toEqual(expect.any(String));
      expect((await server.client.runs.get(threadId, run_id!)).status).toBe("success");
    } finally {
      await thread.close();
    }
  });

  it("reports the interrupt and resumes it with input.respond over the socket", async () => {
    const threadId = crypto.randomUUID();
    const thread = server.client.threads.stream(threadId, { assistantId: "approval", transport: "websocket", webSocketFactory });
    try {
      await thread.run.start({ input: { request: "ship" } });
      await thread.output;
      const deadline = Date.now() + 10_000;
      while (thread.interrupts.length === 0 && Date.now() < deadline) await sleep(20);
      expect(thread.interrupts).toEqual([{ interruptId: expect.any(String), payload: { question: "approve ship?" }, namespace: [] }]);
      await thread.input.respond({ namespace: [], interrupt_id: thread.interrupts[0]!.interruptId, response: "ok" });
      const { events } = await readSse(server.url, threadId, { channels: ["lifecycle"] }, terminals(2));
      expect(rootLifecycle(events)).toEqual(["running", "interrupted", "running", "completed"]);
      expect(await thread.state.get({ namespace: [] })).toMatchObject({ values: { request: "ship", decision: "ok" } });
    } finally {
      await thread.close();
    }
  });
});

describe("raw WebSocket subscriptions", () => {
  let server: TestServer;
  beforeAll(async () => (server = await openServer(memory)));
  afterAll(() => server.close());

  it("answers a subscribe before its replay, replays in seq order, then goes on live; unsubscribe stops the events", async () => {
    const threadId = crypto.randomUUID();
    await runOver(server, threadId, "echo", says("first"), 1);
    const socket = await RawSocket.open(server.url, threadId);
    try {
      const subscribed = await socket.command("subscription.subscribe", { channels: ["lifecycle"] });
      expect(subscribed).toMatchObject({ type: "success", result: { subscription_id: expect.any(String) } });
      const replay = await socket.waitForEvents((events) => rootLifecycle(events).length === 2);
      expect(socket.frames.indexOf(subscribed)).toBeLessThan(socket.frames.indexOf(replay[0] as never));
      expect(rootLifecycle(replay)).toEqual(["running", "completed"]);
      expect(replay.every((e) => e.method === "lifecycle")).toBe(true);

      const started = await socket.command("run.start", { assistant_id: "echo", input: says("second") });
      expect(started).toMatchObject({ type: "success", result: { run_id: expect.any(String) } });
      const all = await socket.waitForEvents((events) => rootLifecycle(events).length === 4);
      expect(rootLifecycle(all)).toEqual(["running", "completed", "running", "completed"]);
      expect(all.every((e, i) => i === 0 || e.seq > all[i - 1]!.seq)).toBe(true);

      const state = await socket.command("state.get", { keys: ["messages"] });
      expect(Object.keys((state.result as { values: object }).values)).toEqual(["messages"]);
      expect((state.result as { values: { messages: unknown[] } }).values.messages).toHaveLength(4);

      const { subscription_id } = subscribed.result as { subscription_id: string };
      expect(await socket.command("subscription.unsubscribe", { subscription_id })).toMatchObject({ type: "success" });
      expect(await socket.command("subscription.unsubscribe", { subscription_id })).toMatchObject({
        type: "error",
        error: "no_such_subscription",
      });
      const before = socket.events.length;
      await runOver(server, threadId, "echo", says("third"), 3);
      await sleep(200);
      expect(socket.events.length).toBe(before);
    } finally {
      await socket.close();
    }
  });

  it("answers commands with the same wire JSON as HTTP: state.get's messages are message dicts, not LangChain constructors", async () => {
    const threadId = crypto.randomUUID();
    await runOver(server, threadId, "echo", says("wire"), 1);
    const overHttp = await ok(server.url, threadId, "state.get", {});
    expect(aiText(overHttp.values)).toEqual(["echo: wire"]);
    const socket = await RawSocket.open(server.url, threadId);
    try {
      const overSocket = await socket.command("state.get", {});
      expect(overSocket.type).toBe("success");
      expect(overSocket.result).toEqual(overHttp);
    } finally {
      await socket.close();
    }
  });

  it("sends an event once when two subscriptions want it, and keeps subscriptions across runs", async () => {
    const threadId = crypto.randomUUID();
    const socket = await RawSocket.open(server.url, threadId);
    try {
      await socket.command("subscription.subscribe", { channels: ["lifecycle"] });
      await socket.command("subscription.subscribe", { channels: ["lifecycle", "values"] });
      await socket.command("run.start", { assistant_id: "echo", input: says("a") });
      await socket.waitForEvents((events) => rootLifecycle(events).length === 2);
      await socket.command("run.start", { assistant_id: "echo", input: says("b") });
      const events = await socket.waitForEvents((got) => rootLifecycle(got).length === 4);
      await sleep(100);
      const seqs = socket.events.map((e) => e.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(events.some((e) => e.method === "values")).toBe(true);
    } finally {
      await socket.close();
    }
  });
});

describe.each(httpDrivers)("subscription.reconnect on a new socket ($name)", (driver) => {
  let server: TestServer;
  beforeAll(async () => (server = await openServer(driver)));
  afterAll(() => server.close());

  it("restores the old socket's subscription and sends exactly the events it missed, then live ones", async () => {
    const threadId = crypto.randomUUID();
    const first = await RawSocket.open(server.url, threadId);
    const subscribed = await first.command("subscription.subscribe", { channels: ["lifecycle", "values"] });
    const { subscription_id } = subscribed.result as { subscription_id: string };
    // A few runs, so the new socket has a log to catch up with when the reconnect arrives.
    for (const [i, text] of ["one", "two", "three"].entries()) {
      await first.command("run.start", { assistant_id: "echo", input: says(text) });
      await first.waitForEvents((events) => rootLifecycle(events).length === 2 * (i + 1));
    }
    const seen = first.events;
    const lastEventId = seen.at(-1)!.event_id;
    await first.close();

    const missedRun = await ok(server.url, threadId, "run.start", { assistant_id: "echo", input: says("two") });
    const log = (await readSse(server.url, threadId, { channels: ["lifecycle", "values"] }, terminals(4))).events;
    const missed = log.filter((e) => e.seq > Number(lastEventId));
    expect(rootLifecycle(missed)).toEqual(["running", "completed"]);

    const second = await RawSocket.open(server.url, threadId);
    try {
      const restored = await second.command("subscription.reconnect", {
        run_id: missedRun.run_id,
        last_event_id: lastEventId,
        subscriptions: [subscription_id],
      });
      expect(restored).toMatchObject({
        type: "success",
        result: {
          restored: true,
          missed_events: missed.length,
          current_namespaces: expect.arrayContaining([{ namespace: [], status: "completed" }]),
        },
      });
      await second.waitForEvents((events) => events.length >= missed.length);
      await sleep(200);
      expect(second.events.map((e) => e.seq)).toEqual(missed.map((e) => e.seq));
      expect(second.events).toEqual(missed);

      await second.command("run.start", { assistant_id: "echo", input: says("three") });
      const live = await second.waitForEvents((events) => rootLifecycle(events).length === 4);
      expect(rootLifecycle(live)).toEqual(["running", "completed", "running", "completed"]);
      expect(live.map((e) => e.seq)).toEqual([...missed.map((e) => e.seq), ...live.slice(missed.length).map((e) => e.seq)]);
      expect(live.slice(missed.length)[0]!.seq).toBe(missed.at(-1)!.seq + 1);

      const unknown = await second.command("subscription.reconnect", { run_id: missedRun.run_id, subscriptions: ["sub.nope"] });
      expect(unknown).toMatchObject({ type: "error", error: "no_such_subscription" });
    } finally {
      await second.close();
    }
  });
});

/** The storage with reads of a thread's whole event log (no `after`) held back, as a slow database would. */
function slowFullLogReads(inner: Storage, delayMs: number): Storage {
  const events = new Proxy(inner.events, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (property !== "list" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
      return async (key: string, options?: { after?: string }) => {
        if (key.startsWith("thread:") && options?.after === undefined) await sleep(delayMs);
        return (value as EventRepo["list"]).call(target, key, options);
      };
    },
  });
  return new Proxy(inner, {
    get(target, property) {
      if (property === "events") return events;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe("subscription.reconnect before the new socket has read the thread's log", () => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await memory.open();
    dispose = opened.dispose;
    server = await startTestServer(slowFullLogReads(opened.storage, 500));
  });
  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it("still sends only the events after last_event_id, once each", async () => {
    const threadId = crypto.randomUUID();
    const { run_id } = await ok(server.url, threadId, "run.start", { assistant_id: "echo", input: says("one") });
    const log = (await readSse(server.url, threadId, { channels: ["lifecycle"] }, terminals(1))).events;
    const subscriptionId = (
      (await ok(server.url, threadId, "subscription.subscribe", { channels: ["lifecycle"] })) as { subscription_id: string }
    ).subscription_id;
    const socket = await RawSocket.open(server.url, threadId);
    try {
      const after = log[1]!.seq;
      const restored = await socket.command("subscription.reconnect", {
        run_id,
        last_event_id: String(after),
        subscriptions: [subscriptionId],
      });
      expect(restored).toMatchObject({ type: "success", result: { restored: true, missed_events: log.length - 2 } });
      await sleep(1500);
      expect(socket.events.map((e) => e.seq)).toEqual(log.slice(2).map((e) => e.seq));
    } finally {
      await socket.close();
    }
  });
});
