import { describe, expect, it } from "vitest";
import { call, runToEnd, say, statusOf, threadDrivers, useServer, type WireMessage } from "../../test/support/threads.js";

describe.each(threadDrivers)("/threads state on $name", (driver) => {
  const server = useServer(driver);
  const contents = (values: unknown) => (values as { messages: WireMessage[] }).messages.map((m) => m.content);

  it("returns the empty state for a thread without checkpoints", async () => {
    const { client } = server();
    const { thread_id } = await client.threads.create();
    expect(await client.threads.getState(thread_id)).toEqual({
      values: {},
      next: [],
      checkpoint: null,
      metadata: null,
      created_at: null,
      parent_checkpoint: null,
      tasks: [],
      interrupts: [],
    });
    expect(await client.threads.getHistory(thread_id)).toEqual([]);
  });

  it("reads the latest state, the state at a checkpoint, and pages history with before", async () => {
    const s = server();
    const { client } = s;
    const { thread_id } = await client.threads.create();
    await runToEnd(s, thread_id, "echo", say("one"));
    await runToEnd(s, thread_id, "echo", say("two"));

    const state = await client.threads.getState(thread_id);
    expect(contents(state.values)).toEqual(["one", "echo: one", "two", "echo: two"]);
    expect((state.values as { messages: WireMessage[] }).messages.map((m) => m.type)).toEqual(["human", "ai", "human", "ai"]);
    expect(state).toMatchObject({
      next: [],
      tasks: [],
      checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id: expect.any(String), checkpoint_map: null },
      parent_checkpoint: { thread_id, checkpoint_id: expect.any(String) },
      metadata: { source: "loop", step: expect.any(Number) },
    });
    expect(new Date(state.created_at!).toISOString()).toBe(state.created_at);
    expect((await client.threads.get(thread_id)).values).toEqual(JSON.parse(JSON.stringify(state.values)));

    const history = await client.threads.getHistory(thread_id, { limit: 100 });
    expect(history[0]).toEqual(state);
    expect(history.length).toBeGreaterThanOrEqual(6);
    const ids = history.map((h) => h.checkpoint.checkpoint_id);
    // The SDK sends `before` as a Config; a raw GET sends the bare id.
    const page = await client.threads.getHistory(thread_id, { limit: 2, before: { configurable: { checkpoint_id: ids[1]! } } });
    expect(page.map((h) => h.checkpoint.checkpoint_id)).toEqual([ids[2], ids[3]]);
    const viaGet = await call(s, "GET", `/threads/${thread_id}/history?limit=2&before=${ids[2]}`);
    expect(viaGet.json.map((h: { checkpoint: { checkpoint_id: string } }) => h.checkpoint.checkpoint_id)).toEqual([ids[3], ids[4]]);
    const inputs = await client.threads.getHistory(thread_id, { limit: 100, metadata: { source: "input" } });
    expect(inputs).toHaveLength(2);

    const past = history[3];
    expect(await client.threads.getState(thread_id, past.checkpoint.checkpoint_id!)).toEqual(past);
    expect(await client.threads.getState(thread_id, { ...past.checkpoint })).toEqual(past);
    const selected = await client.threads.getState(thread_id, undefined, { select: ["values.messages", "next"] });
    expect(selected).toEqual({ values: { messages: (state.values as { messages: unknown }).messages }, next: [] });
  });

  it("shows an interrupted thread's tasks[].interrupts and interrupts, also on the thread row", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create();
    await runToEnd(s, thread_id, "approval", { request: "deploy" });
    const state = await s.client.threads.getState(thread_id);
    expect(state.next).toEqual(["ask"]);
    expect(state.tasks).toEqual([
      {
        id: expect.any(String),
        name: "ask",
        error: null,
        interrupts: [{ id: expect.any(String), value: { question: "approve deploy?" } }],
        checkpoint: null,
        state: null,
        result: null,
        path: expect.any(Array),
      },
    ]);
    expect((state as unknown as { interrupts: unknown[] }).interrupts).toEqual(state.tasks[0].interrupts);
    const thread = await s.client.threads.get(thread_id);
    expect(thread.status).toBe("interrupted");
    expect(thread.interrupts).toEqual({ [state.tasks[0].id]: state.tasks[0].interrupts });
    expect((await s.client.threads.search({ ids: [thread_id], status: "interrupted" })).length).toBe(1);
  });

  it("a run stopped at a breakpoint leaves the thread interrupted, its subgraph task pointing at its namespace", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create();
    await s.client.runs.wait(thread_id, "parent", { input: say("hi"), interruptBefore: ["child"] });
    const [run] = await s.client.runs.list(thread_id);
    expect(run.status).toBe("success");
    expect(await s.client.threads.get(thread_id)).toMatchObject({ status: "interrupted", interrupts: {} });
    const state = await s.client.threads.getState(thread_id);
    expect(state.next).toEqual(["child"]);
    // The official server's shape: the namespace only (no checkpoint id or map before the subgraph ran).
    expect(state.tasks).toEqual([
      {
        id: expect.any(String),
        name: "child",
        path: ["__pregel_pull", "child"],
        error: null,
        interrupts: [],
        checkpoint: { thread_id, checkpoint_ns: expect.stringMatching(/^child:/) },
        state: null,
        result: null,
      },
    ]);

    await s.client.runs.wait(thread_id, "parent", { input: null });
    expect(await s.client.threads.get(thread_id)).toMatchObject({ status: "idle" });
    expect(contents((await s.client.threads.getState(thread_id)).values)).toEqual(["hi", "echo: hi"]);
  });

  it("updates state as a node, and the next run continues from that checkpoint", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create({ graphId: "approval" });
    const { checkpoint } = (await s.client.threads.updateState(thread_id, {
      values: { request: "budget" },
      asNode: "__start__",
    })) as unknown as {
      checkpoint: { thread_id: string; checkpoint_id: string };
    };
    expect(checkpoint).toMatchObject({ thread_id, checkpoint_ns: "", checkpoint_id: expect.any(String) });
    const updated = await s.client.threads.getState(thread_id);
    expect(updated).toMatchObject({
      values: { request: "budget" },
      next: ["ask"],
      checkpoint: { checkpoint_id: checkpoint.checkpoint_id },
    });
    expect((await s.client.threads.get(thread_id)).values).toEqual({ request: "budget" });

    await runToEnd(s, thread_id, "approval", null);
    const asked = await s.client.threads.getState(thread_id);
    expect(asked.tasks[0].interrupts).toMatchObject([{ value: { question: "approve budget?" } }]);
    // The run resumed at the updated checkpoint and stopped in "ask" before finishing a step there.
    expect(asked.checkpoint.checkpoint_id).toBe(checkpoint.checkpoint_id);

    // Writing as the interrupted node completes it: the thread no longer waits.
    await s.client.threads.updateState(thread_id, { values: { decision: "by hand" }, asNode: "ask" });
    expect(await s.client.threads.get(thread_id)).toMatchObject({ status: "idle", interrupts: {}, values: { decision: "by hand" } });
  });

  it("forks from an older checkpoint, and the next run continues the fork", async () => {
    const s = server();
    const echo = await s.client.threads.create();
    await runToEnd(s, echo.thread_id, "echo", say("one"));
    const first = (await s.client.threads.getHistory(echo.thread_id)).find((h) => h.metadata?.source === "input")!;
    await s.client.threads.updateState(echo.thread_id, {
      values: { messages: [{ role: "user", content: "instead" }] },
      asNode: "__start__",
      checkpointId: first.checkpoint.checkpoint_id!,
    });
    const forked = await s.client.threads.getState(echo.thread_id);
    expect(forked.parent_checkpoint?.checkpoint_id).toBe(first.checkpoint.checkpoint_id);
    expect(forked.next).toEqual(["echo"]);
    await runToEnd(s, echo.thread_id, "echo", null);
    // On PostgreSQL this needs unique channel versions per write (RunAwarePostgresSaver.getNextVersion):
    // with plain counters the fork's blobs collided with the later checkpoint's and read ["one", ...].
    expect(contents((await s.client.threads.getState(echo.thread_id)).values)).toEqual(["instead", "echo: instead"]);
  });

  it("refuses state updates while a run is busy (409) and for unknown checkpoints (404)", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create();
    const run = await s.engine.createRun({ assistant_id: "slow", input: { delayMs: 500 } }, { threadId: thread_id });
    expect(await statusOf(s.client.threads.updateState(thread_id, { values: { steps: [7] }, asNode: "first" }))).toBe(409);
    expect((await s.engine.waitRun(run.run_id)).status).toBe("success");
    await s.client.threads.updateState(thread_id, { values: { steps: [7] }, asNode: "second" });
    expect((await s.client.threads.getState(thread_id)).values).toMatchObject({ steps: [1, 2, 7] });

    const missing = crypto.randomUUID();
    expect(await statusOf(s.client.threads.getState(thread_id, missing))).toBe(404);
    expect(await statusOf(s.client.threads.updateState(thread_id, { values: { steps: [1] }, checkpointId: missing }))).toBe(404);
  });

  it("answers 404 for unknown threads and 422 for bad input", async () => {
    const s = server();
    const unknown = crypto.randomUUID();
    expect(await statusOf(s.client.threads.getState(unknown))).toBe(404);
    expect(await statusOf(s.client.threads.getHistory(unknown))).toBe(404);
    expect(await statusOf(s.client.threads.updateState(unknown, { values: {} }))).toBe(404);
    expect((await call(s, "GET", `/threads/${unknown}/history`)).status).toBe(404);

    const { thread_id } = await s.client.threads.create();
    await runToEnd(s, thread_id, "echo", say("hi"));
    const cases: Array<[string, string, unknown, RegExp]> = [
      ["GET", `/threads/${thread_id}/state/not-a-checkpoint`, undefined, /checkpoint_id/],
      ["GET", `/threads/${thread_id}/state?subgraphs=maybe`, undefined, /subgraphs/],
      ["GET", `/threads/${thread_id}/state?select=secrets`, undefined, /select/],
      ["GET", `/threads/${thread_id}/history?limit=zero`, undefined, /limit/],
      ["POST", `/threads/${thread_id}/history`, { limit: -1 }, /limit/],
      ["POST", `/threads/${thread_id}/history`, { before: 42 }, /before/],
      ["POST", `/threads/${thread_id}/state/checkpoint`, { checkpoint: { checkpoint_id: "x" } }, /checkpoint/],
      ["POST", `/threads/${thread_id}/state`, { values: "text" }, /values/],
      ["POST", `/threads/${thread_id}/state`, { values: {}, as_node: 3 }, /as_node/],
      ["POST", `/threads/${thread_id}/state`, { values: { messages: [] }, as_node: "nowhere" }, /nowhere/],
      ["POST", `/threads/${thread_id}/state`, { values: { messages: [{ nonsense: true }] }, as_node: "echo" }, /state update/],
    ];
    for (const [method, path, payload, field] of cases) {
      const response = await call(s, method, path, payload);
      expect([path, response.status]).toEqual([path, 422]);
      expect(response.json.detail).toMatch(field);
    }
    const graphless = await s.client.threads.create();
    const refused = await call(s, "POST", `/threads/${graphless.thread_id}/state`, { values: { a: 1 } });
    expect(refused.status).toBe(422);
  });
});
