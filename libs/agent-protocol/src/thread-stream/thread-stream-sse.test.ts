import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SubscriptionHandle } from "@langchain/langgraph-sdk";
import { drivers } from "@agent-server/testing";
import { eventually } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer } from "../../test/support/http.js";
import { readSse, rootLifecycle, says, sleep, terminals, type WireEvent } from "../../test/support/thread-stream.js";

/**
 * The thread streaming protocol over SSE with the official SDK's `ThreadStream`
 * (`client.threads.stream()`), and the replay contract every SSE stream keeps.
 */

const ALL = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"];
const memory = drivers.find((d) => d.name === "memory")!;

/** Reads a subscription until `done(event)` holds; a handle the SDK paused at a run's end is read again. */
async function readUntil(handle: SubscriptionHandle, done: (event: WireEvent) => boolean, timeoutMs = 15_000): Promise<WireEvent[]> {
  const seen: WireEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for await (const event of handle as AsyncIterable<WireEvent>) {
      seen.push(event);
      if (done(event)) return seen;
    }
    await sleep(20);
  }
  throw new Error(`not seen in time; got ${JSON.stringify(seen.map((e) => [e.method, e.params.data]))}`);
}

const rootIs = (status: string) => (e: WireEvent) =>
  e.method === "lifecycle" && e.params.namespace.length === 0 && (e.params.data as { event: string }).event === status;

const aiText = (values: unknown) =>
  ((values as { messages?: Array<{ content: unknown; getType?: () => string; type?: string }> }).messages ?? [])
    .filter((m) => (m.getType?.() ?? m.type) === "ai")
    .map((m) => String(m.content));

describe("ThreadStream over SSE (official SDK)", () => {
  let server: TestServer;
  beforeAll(async () => (server = await openServer(memory)));
  afterAll(() => server.close());

  it("run.start creates a thread that does not exist yet; values, output and root lifecycle running → completed", async () => {
    const threadId = crypto.randomUUID();
    await expectHttpError(server.client.threads.get(threadId), 404);
    const thread = server.client.threads.stream(threadId, { assistantId: "echo" });
    try {
      const snapshots: unknown[] = [];
      const reading = (async () => {
        for await (const values of thread.values) snapshots.push(values);
      })();
      const { run_id } = (await thread.run.start({ input: says("hi") })) as { run_id?: string };
      expect(run_id).toEqual(expect.any(String));
      const output = await thread.output;
      expect(aiText(output)).toEqual(["echo: hi"]);
      await reading;
      expect(snapshots.length).toBeGreaterThanOrEqual(2);
      expect(aiText(snapshots.at(-1))).toEqual(["echo: hi"]);

      // Subscribed after the run ended: replayed from the thread's first event.
      const lifecycle = await thread.subscribe({ channels: ["lifecycle"] });
      const events = await readUntil(lifecycle, rootIs("completed"));
      expect(rootLifecycle(events)).toEqual(["running", "completed"]);
      expect(events[0]!.params.data).toMatchObject({ graph_name: "echo" });

      const created = await server.client.threads.get(threadId);
      expect(created.thread_id).toBe(threadId);
      expect((await server.client.runs.get(threadId, run_id!)).status).toBe("success");
      await eventually(async () => (await server.client.threads.get(threadId)).status === "idle");
    } finally {
      await thread.close();
    }
  });

  it("thread.messages assembles the chat model's streamed reply; subscribe({channels}) sees only those channels", async () => {
    const thread = server.client.threads.stream(crypto.randomUUID(), { assistantId: "chat" });
    try {
      const updates = await thread.subscribe({ channels: ["updates", "lifecycle"] });
      const texts: string[] = [];
      const reading = (async () => {
        for await (const message of thread.messages) texts.push(await message.text);
      })();
      await thread.run.start({ input: says("hello") });
      const events = await readUntil(updates, rootIs("completed"));
      await reading;
      expect(texts).toEqual(["You said: hello."]);
      expect(new Set(events.map((e) => e.method))).toEqual(new Set(["updates", "lifecycle"]));
      expect(events.some((e) => e.method === "updates" && JSON.stringify(e.params.data).includes("You said: hello."))).toBe(true);
    } finally {
      await thread.close();
    }
  });

  it("an interrupt is input.requested and thread.interrupts; input.respond resumes it to completed with the decision", async () => {
    const threadId = crypto.randomUUID();
    const thread = server.client.threads.stream(threadId, { assistantId: "approval" });
    try {
      await thread.run.start({ input: { request: "deploy" } });
      expect(await thread.output).toEqual({ request: "deploy" });
      const inputs = await thread.subscribe({ channels: ["input", "lifecycle"] });
      const first = await readUntil(inputs, rootIs("interrupted"));
      const requested = first.filter((e) => e.method === "input.requested");
      expect(requested).toHaveLength(1);
      const { interrupt_id, payload } = requested[0]!.params.data as { interrupt_id: string; payload: unknown };
      expect(payload).toEqual({ question: "approve deploy?" });
      expect(thread.interrupted).toBe(true);
      expect(thread.interrupts).toEqual([{ interruptId: interrupt_id, payload, namespace: [] }]);
      expect(rootLifecycle(first)).toEqual(["running", "interrupted"]);

      await thread.input.respond({ namespace: [], interrupt_id, response: "yes" });
      const { events } = await readSse(server.url, threadId, { channels: ALL }, terminals(2));
      expect(rootLifecycle(events)).toEqual(["running", "interrupted", "running", "completed"]);
      // The resuming run announces what it answers right after it starts, for every client on the thread.
      const secondRunning = events.findIndex((e, i) => i > events.findIndex(rootIs("interrupted")) && rootIs("running")(e));
      expect(events[secondRunning + 1]).toMatchObject({ method: "input.answered", params: { data: { interrupt_ids: [interrupt_id] } } });
      const lastValues = events.filter((e) => e.method === "values").at(-1)!;
      expect(lastValues.params.data).toEqual({ request: "deploy", decision: "yes" });
      expect(await thread.state.get({ namespace: [] })).toMatchObject({ values: { request: "deploy", decision: "yes" } });
      expect((await server.client.threads.getState(threadId)).values).toEqual({ request: "deploy", decision: "yes" });
    } finally {
      await thread.close();
    }
  });

  it("a failing graph ends with root lifecycle failed carrying the error", async () => {
    const threadId = crypto.randomUUID();
    const thread = server.client.threads.stream(threadId, { assistantId: "failing" });
    try {
      const lifecycle = await thread.subscribe({ channels: ["lifecycle"] });
      await thread.run.start({ input: says("boom") });
      const events = await readUntil(lifecycle, rootIs("failed"));
      expect(rootLifecycle(events)).toEqual(["running", "failed"]);
      expect(events.at(-1)!.params.data).toMatchObject({ event: "failed", error: "graph failed on purpose" });
    } finally {
      await thread.close();
    }
  });
});

describe.each(httpDrivers)("the SSE replay contract ($name)", (driver) => {
  let server: TestServer;
  let threadId: string;
  let live: WireEvent[];
  let all: WireEvent[];
  beforeAll(async () => {
    server = await openServer(driver);
    threadId = crypto.randomUUID();
    // Opened before the thread exists: it waits for it, then follows both runs live.
    const following = readSse(server.url, threadId, { channels: ALL }, terminals(2), { timeoutMs: 30_000 });
    await sleep(100);
    const thread = server.client.threads.stream(threadId, { assistantId: "echo" });
    await thread.run.start({ input: says("one") });
    await thread.output;
    await thread.close();
    const second = server.client.threads.stream(threadId, { assistantId: "echo" });
    await second.run.start({ input: says("two") });
    live = (await following).events;
    await second.close();
    all = (await readSse(server.url, threadId, { channels: ALL }, terminals(2))).events;
  });
  afterAll(() => server.close());

  it("numbers the thread's events 1..n across both runs, event_id the seq as text; the second run follows the first", () => {
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.every((e) => e.type === "event" && e.event_id === String(e.seq))).toBe(true);
    expect(rootLifecycle(all)).toEqual(["running", "completed", "running", "completed"]);
    const firstEnd = all.findIndex(rootIs("completed"));
    const secondStart = all.findIndex((e, i) => i > firstEnd && rootIs("running")(e));
    expect(secondStart).toBe(firstEnd + 1);
    const texts = all.filter((e) => e.method === "values").map((e) => aiText(e.params.data));
    expect(texts.at(-1)).toEqual(["echo: one", "echo: two"]);
  });

  it("a stream opened after the runs ended replays every event, the same a live stream got", () => {
    expect(live.map((e) => e.event_id)).toEqual(all.map((e) => e.event_id));
    expect(live).toEqual(all);
  });

  it("since: N replays exactly the events after seq N", async () => {
    for (const since of [0, 3, all.length - 1]) {
      const { events } = await readSse(server.url, threadId, { channels: ALL, since }, (got) => got.at(-1)?.seq === all.length, {
        timeoutMs: 3000,
      });
      expect(events).toEqual(all.filter((e) => e.seq > since));
    }
    const none = await readSse(server.url, threadId, { channels: ALL, since: all.length }, () => false, { timeoutMs: 800 });
    expect(none).toEqual({ status: 200, events: [] });
  });

  it("filters a replay by channel and namespace without renumbering", async () => {
    const { events } = await readSse(server.url, threadId, { channels: ["lifecycle"] }, terminals(2));
    expect(events).toEqual(all.filter((e) => e.method === "lifecycle"));
    const nested = await readSse(server.url, threadId, { channels: ALL, namespaces: [["nowhere"]] }, () => false, { timeoutMs: 800 });
    expect(nested.events).toEqual([]);
  });

  it("a late ThreadStream replays the runs through the SDK once each (deduplicated by event_id)", async () => {
    const thread = server.client.threads.stream(threadId, { assistantId: "echo" });
    try {
      const first = await thread.subscribe({ channels: ["lifecycle", "values"] });
      const second = await thread.subscribe({ channels: ["lifecycle"] });
      const wanted = all.filter((e) => e.method === "lifecycle" || e.method === "values");
      const got = await readUntil(first, (e) => e.seq === wanted.at(-1)!.seq);
      expect(got.map((e) => e.event_id)).toEqual(wanted.map((e) => e.event_id));
      const lifecycle = await readUntil(second, (e) => e.seq === all.filter((x) => x.method === "lifecycle").at(-1)!.seq);
      expect(new Set(lifecycle.map((e) => e.event_id)).size).toBe(lifecycle.length);
      expect(rootLifecycle(lifecycle)).toEqual(["running", "completed", "running", "completed"]);
    } finally {
      await thread.close();
    }
  });
});
