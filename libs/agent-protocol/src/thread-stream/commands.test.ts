import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drivers } from "@agent-server/testing";
import type { TestServer } from "../../test/support/index.js";
import { httpDrivers, openServer } from "../../test/support/http.js";
import { command, ok, readSse, refused, rootLifecycle, says, terminals, type WireEvent } from "../../test/support/thread-stream.js";

/** Every command of `POST /threads/{thread_id}/commands`, with its success and its protocol errors. */

const memory = drivers.find((d) => d.name === "memory")!;
const ALL = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"];

/** `type:text` of each message; content blocks (a chat model streamed under v3 writes them) are joined. */
const texts = (values: unknown) =>
  ((values as { messages?: Array<{ type: string; content: unknown }> }).messages ?? []).map((m) => {
    const content = Array.isArray(m.content) ? (m.content as Array<{ text?: string }>).map((b) => b.text ?? "").join("") : m.content;
    return `${m.type}:${String(content)}`;
  });

/** Starts a run with a command and waits until the thread's log has `ends` root terminal lifecycle events. */
async function run(server: TestServer, threadId: string, params: Record<string, unknown>, ends: number): Promise<WireEvent[]> {
  await ok(server.url, threadId, "run.start", params);
  return (await readSse(server.url, threadId, { channels: ALL }, terminals(ends))).events;
}

describe.each(httpDrivers)("state commands ($name)", (driver) => {
  let server: TestServer;
  let threadId: string;
  beforeAll(async () => {
    server = await openServer(driver);
    threadId = crypto.randomUUID();
    await run(server, threadId, { assistant_id: "echo", input: says("one") }, 1);
    await run(server, threadId, { assistant_id: "echo", input: says("two") }, 2);
  });
  afterAll(() => server.close());

  it("state.get: the values (all or keys) and the checkpoint GET /state names", async () => {
    const state = await ok(server.url, threadId, "state.get", { namespace: [] });
    expect(texts(state.values)).toEqual(["human:one", "ai:echo: one", "human:two", "ai:echo: two"]);
    const rest = await server.client.threads.getState(threadId);
    expect(state.checkpoint).toEqual({ id: rest.checkpoint.checkpoint_id });
    expect(await ok(server.url, threadId, "state.get", { keys: ["nothing"] })).toMatchObject({ values: {} });
    expect(Object.keys((await ok(server.url, threadId, "state.get", { keys: ["messages"] })).values as object)).toEqual(["messages"]);
    await refused(server.url, threadId, "state.get", { namespace: ["child"] }, "no_such_namespace");
    await refused(server.url, crypto.randomUUID(), "state.get", {}, "invalid_argument");
  });

  it("state.listCheckpoints: the ids of GET /history, newest first; limit and before page them", async () => {
    const history = await server.client.threads.getHistory(threadId, { limit: 20 });
    const { checkpoints } = (await ok(server.url, threadId, "state.listCheckpoints", { limit: 20 })) as {
      checkpoints: Array<{ id: string; step: number; timestamp: string }>;
    };
    expect(checkpoints.map((c) => c.id)).toEqual(history.map((h) => h.checkpoint.checkpoint_id));
    expect(checkpoints.length).toBeGreaterThanOrEqual(4);
    expect(checkpoints.every((c) => typeof c.step === "number" && !Number.isNaN(Date.parse(c.timestamp)))).toBe(true);
    const two = (await ok(server.url, threadId, "state.listCheckpoints", { limit: 2 })) as { checkpoints: Array<{ id: string }> };
    expect(two.checkpoints.map((c) => c.id)).toEqual(checkpoints.slice(0, 2).map((c) => c.id));
    const next = (await ok(server.url, threadId, "state.listCheckpoints", { limit: 2, before: checkpoints[1]!.id })) as {
      checkpoints: Array<{ id: string }>;
    };
    expect(next.checkpoints.map((c) => c.id)).toEqual(checkpoints.slice(2, 4).map((c) => c.id));
  });

  it("state.fork: a run from an earlier checkpoint branches the thread; an unknown checkpoint is no_such_checkpoint", async () => {
    const forkThread = crypto.randomUUID();
    await run(server, forkThread, { assistant_id: "echo", input: says("one") }, 1);
    const afterFirst = (await ok(server.url, forkThread, "state.get", {})).checkpoint as { id: string };
    await run(server, forkThread, { assistant_id: "echo", input: says("two") }, 2);
    const forked = await ok(server.url, forkThread, "state.fork", { checkpoint_id: afterFirst.id, input: says("fork") });
    expect(forked).toEqual({ run_id: expect.any(String), thread_id: forkThread });
    const events = (await readSse(server.url, forkThread, { channels: ["lifecycle"] }, terminals(3))).events;
    expect(rootLifecycle(events)).toEqual(["running", "completed", "running", "completed", "running", "completed"]);
    // The terminal lifecycle is appended before settlement's terminal write: join waits for that write.
    await server.client.runs.join(forkThread, forked.run_id as string);
    expect((await server.client.runs.get(forkThread, forked.run_id as string)).status).toBe("success");
    const state = await ok(server.url, forkThread, "state.get", {});
    expect(texts(state.values)).toEqual(["human:one", "ai:echo: one", "human:fork", "ai:echo: fork"]);
    await refused(server.url, forkThread, "state.fork", { checkpoint_id: "1f000000-0000-6000-8000-000000000000" }, "no_such_checkpoint");
  });
});

describe("run, input, agent and subscription commands", () => {
  let server: TestServer;
  beforeAll(async () => (server = await openServer(memory)));
  afterAll(() => server.close());

  it("agent.getTree: the root and the parent graph's subgraph namespaces, with their statuses", async () => {
    const threadId = crypto.randomUUID();
    await run(server, threadId, { assistant_id: "parent", input: says("tree") }, 1);
    const { tree } = (await ok(server.url, threadId, "agent.getTree", {})) as {
      tree: {
        namespace: string[];
        status: string;
        graph_name: string;
        children?: Array<{ namespace: string[]; status: string; graph_name: string }>;
      };
    };
    expect(tree).toMatchObject({ namespace: [], status: "completed", graph_name: "parent" });
    expect(tree.children).toHaveLength(1);
    expect(tree.children![0]).toMatchObject({ namespace: [expect.stringMatching(/^child:/)], status: "completed", graph_name: "child" });
    const [latest] = await server.client.runs.list(threadId);
    expect(await ok(server.url, threadId, "agent.getTree", { run_id: latest!.run_id })).toEqual({ tree });
    await refused(server.url, threadId, "agent.getTree", { run_id: crypto.randomUUID() }, "no_such_run");
  });

  it("run.start: enqueue by default (the second waits for the first), reject while busy is invalid_argument", async () => {
    const threadId = crypto.randomUUID();
    const first = await ok(server.url, threadId, "run.start", { assistant_id: "slow", input: { delayMs: 300 } });
    const second = await ok(server.url, threadId, "run.start", { assistant_id: "slow", input: { delayMs: 10 } });
    const message = await refused(
      server.url,
      threadId,
      "run.start",
      { assistant_id: "slow", input: {}, multitask_strategy: "reject" },
      "invalid_argument",
    );
    expect(message).toMatch(/busy|running|inflight|in progress/i);
    const events = (await readSse(server.url, threadId, { channels: ["lifecycle"] }, terminals(2))).events;
    expect(rootLifecycle(events)).toEqual(["running", "completed", "running", "completed"]);
    expect((await server.client.runs.get(threadId, first.run_id as string)).status).toBe("success");
    expect((await server.client.runs.get(threadId, second.run_id as string)).status).toBe("success");
    expect(((await ok(server.url, threadId, "state.get", {})).values as { steps: number[] }).steps).toEqual([1, 2, 1, 2]);
  });

  it("run.start on an interrupted thread resumes it with the input; input.respond refuses an unknown interrupt", async () => {
    const threadId = crypto.randomUUID();
    await refused(server.url, threadId, "input.respond", { namespace: [], interrupt_id: "nope", response: 1 }, "no_such_run");
    const events = await run(server, threadId, { assistant_id: "approval", input: { request: "a" } }, 1);
    const requested = events.find((e) => e.method === "input.requested")!;
    expect(requested.params.data).toEqual({ interrupt_id: expect.any(String), payload: { question: "approve a?" } });
    await refused(
      server.url,
      threadId,
      "input.respond",
      { namespace: [], interrupt_id: "not-pending", response: "x" },
      "no_such_interrupt",
    );
    await refused(
      server.url,
      threadId,
      "input.respond",
      { responses: [{ namespace: [], interrupt_id: "nope", response: 1 }] },
      "no_such_interrupt",
    );
    const resume = await command(server.url, threadId, "run.start", { assistant_id: "approval", input: "via run.start" });
    // What the client holds up to here is history: the thread's last seq before this run.
    expect(resume.body).toMatchObject({ type: "success", meta: { thread_id: threadId, applied_through_seq: events.at(-1)!.seq } });
    const resumed = (await readSse(server.url, threadId, { channels: ALL }, terminals(2))).events;
    expect(rootLifecycle(resumed)).toEqual(["running", "interrupted", "running", "completed"]);
    const answered = resumed.filter((e) => e.method === "input.answered").map((e) => e.params.data);
    expect(answered).toEqual([{ interrupt_ids: [(requested.params.data as { interrupt_id: string }).interrupt_id] }]);
    expect((await ok(server.url, threadId, "state.get", {})).values).toEqual({ request: "a", decision: "via run.start" });
    // Answered: the interrupt is no longer pending.
    const { interrupt_id } = requested.params.data as { interrupt_id: string };
    await refused(server.url, threadId, "input.respond", { namespace: [], interrupt_id, response: "again" }, "no_such_interrupt");
  });

  it("input.inject queues the message as a run's input behind the current run", async () => {
    const threadId = crypto.randomUUID();
    await refused(server.url, threadId, "input.inject", { namespace: [], message: { role: "user", content: "x" } }, "no_such_run");
    await ok(server.url, threadId, "run.start", { assistant_id: "chat", input: { ...says("first"), delayMs: 20 } });
    const injected = await ok(server.url, threadId, "input.inject", { namespace: [], message: { role: "user", content: "injected" } });
    expect(injected).toEqual({ run_id: expect.any(String) });
    await readSse(server.url, threadId, { channels: ["lifecycle"] }, terminals(2));
    expect((await server.client.runs.get(threadId, injected.run_id as string)).status).toBe("success");
    const values = (await ok(server.url, threadId, "state.get", {})).values;
    expect(texts(values)).toEqual(["human:first", "ai:You said: first.", "human:injected", "ai:You said: injected."]);
  });

  it("an unknown method is unknown_command; subscription commands over HTTP describe the stream they stand for", async () => {
    const threadId = crypto.randomUUID();
    const events = await run(server, threadId, { assistant_id: "echo", input: says("x") }, 1);
    const message = await refused(server.url, threadId, "thread.explode", {}, "unknown_command");
    expect(message).toContain("thread.explode");

    const subscribed = (await ok(server.url, threadId, "subscription.subscribe", { channels: ["values", "lifecycle"] })) as {
      subscription_id: string;
      replayed_events: number;
    };
    const wanted = events.filter((e) => e.method === "values" || e.method === "lifecycle");
    expect(subscribed).toEqual({ subscription_id: expect.any(String), replayed_events: wanted.length });
    expect(await ok(server.url, threadId, "subscription.unsubscribe", { subscription_id: subscribed.subscription_id })).toEqual({});
    await refused(server.url, threadId, "subscription.unsubscribe", { subscription_id: "sub.forged" }, "no_such_subscription");

    const [latest] = await server.client.runs.list(threadId);
    const after = wanted[1]!.seq;
    const reconnected = await ok(server.url, threadId, "subscription.reconnect", {
      run_id: latest!.run_id,
      last_event_id: String(after),
      subscriptions: [subscribed.subscription_id],
    });
    expect(reconnected).toMatchObject({ restored: true, missed_events: wanted.filter((e) => e.seq > after).length });
    expect(reconnected.current_namespaces).toContainEqual({ namespace: [], status: "completed" });
    await refused(server.url, threadId, "subscription.reconnect", { last_event_id: "abc" }, "invalid_argument");
  });
});
