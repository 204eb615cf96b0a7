import { describe, expect, it } from "vitest";
import { call, runToEnd, say, statusOf, threadDrivers, useServer, type WireMessage } from "../../test/support/threads.js";

describe.each(threadDrivers)("/threads copy and prune on $name", (driver) => {
  const server = useServer(driver);
  const contents = (values: unknown) => (values as { messages: WireMessage[] }).messages.map((m) => m.content);

  it("copies a thread: same checkpoints and state, its runs under new ids, the source untouched", async () => {
    const s = server();
    const source = await s.client.threads.create({ metadata: { owner: "ann" } });
    await runToEnd(s, source.thread_id, "echo", say("one"));
    await runToEnd(s, source.thread_id, "echo", say("two"));
    const sourceState = await s.client.threads.getState(source.thread_id);
    const sourceHistory = await s.client.threads.getHistory(source.thread_id, { limit: 100 });
    const sourceRuns = await s.storage.runs.search({ thread_id: source.thread_id });

    const copy = await s.client.threads.copy(source.thread_id);
    expect(copy.thread_id).not.toBe(source.thread_id);
    expect(copy).toMatchObject({ metadata: { owner: "ann" }, status: "idle" });
    expect(contents(copy.values)).toEqual(["one", "echo: one", "two", "echo: two"]);

    const copyState = await s.client.threads.getState(copy.thread_id);
    expect(copyState.values).toEqual(sourceState.values);
    expect(copyState.checkpoint).toEqual({ ...sourceState.checkpoint, thread_id: copy.thread_id });
    const copyHistory = await s.client.threads.getHistory(copy.thread_id, { limit: 100 });
    expect(copyHistory.map((h) => h.checkpoint.checkpoint_id)).toEqual(sourceHistory.map((h) => h.checkpoint.checkpoint_id));

    const copyRuns = await s.storage.runs.search({ thread_id: copy.thread_id });
    expect(copyRuns).toHaveLength(sourceRuns.length);
    const sourceRunIds = new Set(sourceRuns.map((r) => r.run_id));
    for (const run of copyRuns) expect(sourceRunIds.has(run.run_id)).toBe(false);
    expect(copyRuns.map((r) => r.status)).toEqual(sourceRuns.map((r) => r.status));
    // The copy's checkpoints keep naming the run that wrote them, so its state differs only in thread_id.
    expect(copyState.metadata?.run_id).toBe(sourceState.metadata?.run_id);

    // Work on the copy leaves the source as it was.
    await runToEnd(s, copy.thread_id, "echo", say("three"));
    expect(contents((await s.client.threads.getState(copy.thread_id)).values)).toHaveLength(6);
    expect(await s.client.threads.getState(source.thread_id)).toEqual(sourceState);
    expect(await s.client.threads.getHistory(source.thread_id, { limit: 100 })).toEqual(sourceHistory);
    expect((await s.storage.runs.search({ thread_id: source.thread_id })).map((r) => r.run_id)).toEqual(sourceRuns.map((r) => r.run_id));
  });

  it("refuses to copy an unknown thread or one with a run in flight (409, as the official server)", async () => {
    const s = server();
    expect(await statusOf(s.client.threads.copy(crypto.randomUUID()))).toBe(409);
    expect((await call(s, "POST", "/threads/nope/copy")).status).toBe(422);
    const { thread_id } = await s.client.threads.create();
    const run = await s.engine.createRun({ assistant_id: "slow", input: { delayMs: 300 } }, { threadId: thread_id });
    expect(await statusOf(s.client.threads.copy(thread_id))).toBe(409);
    expect((await s.engine.waitRun(run.run_id)).status).toBe("success");
    const copy = await s.client.threads.copy(thread_id);
    expect((await s.client.threads.getState(copy.thread_id)).values).toMatchObject({ steps: [1, 2] });
  });

  it("prunes with keep_latest: one checkpoint left, state readable, runs kept, next run works", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create();
    await runToEnd(s, thread_id, "echo", say("one"));
    await runToEnd(s, thread_id, "echo", say("two"));
    const before = await s.client.threads.getState(thread_id);
    expect((await s.client.threads.getHistory(thread_id, { limit: 100 })).length).toBeGreaterThan(1);

    expect(await s.client.threads.prune([thread_id, crypto.randomUUID()], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
    const history = await s.client.threads.getHistory(thread_id, { limit: 100 });
    expect(history).toHaveLength(1);
    const after = await s.client.threads.getState(thread_id);
    expect(after.values).toEqual(before.values);
    expect(after.checkpoint).toEqual(before.checkpoint);
    expect(await s.storage.runs.search({ thread_id })).toHaveLength(2);

    await runToEnd(s, thread_id, "echo", say("three"));
    expect(contents((await s.client.threads.getState(thread_id)).values)).toEqual([
      "one",
      "echo: one",
      "two",
      "echo: two",
      "three",
      "echo: three",
    ]);
  });

  it("keeps an interrupted thread resumable after keep_latest", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create();
    await runToEnd(s, thread_id, "approval", { request: "deploy" });
    const body = await call(s, "POST", "/threads/prune", { thread_ids: [thread_id], strategy: "keep_latest" });
    expect(body).toEqual({ status: 200, json: { pruned_count: 1 } });
    const state = await s.client.threads.getState(thread_id);
    expect(state.tasks[0].interrupts).toMatchObject([{ value: { question: "approve deploy?" } }]);
    await runToEnd(s, thread_id, "approval", undefined, { resume: "yes" });
    expect((await s.client.threads.getState(thread_id)).values).toEqual({ request: "deploy", decision: "yes" });
  });

  it("prunes with delete: the threads go with their runs and checkpoints; unknown ids are skipped", async () => {
    const s = server();
    const kept = await s.client.threads.create();
    const doomed = await s.client.threads.create();
    const run = await runToEnd(s, doomed.thread_id, "echo", say("bye"));
    expect(await s.client.threads.prune([doomed.thread_id, crypto.randomUUID()])).toEqual({ pruned_count: 1 });
    expect(await statusOf(s.client.threads.get(doomed.thread_id))).toBe(404);
    expect(await s.storage.runs.get(run.run_id)).toBeNull();
    expect(await s.storage.checkpointer.getTuple({ configurable: { thread_id: doomed.thread_id, checkpoint_ns: "" } })).toBeUndefined();
    expect((await s.client.threads.get(kept.thread_id)).thread_id).toBe(kept.thread_id);
    expect(await s.client.threads.prune([])).toEqual({ pruned_count: 0 });
  });

  it("answers 422 naming the field for bad prune bodies", async () => {
    const s = server();
    const cases: Array<[unknown, RegExp]> = [
      [{}, /thread_ids/],
      [{ thread_ids: "x" }, /thread_ids/],
      [{ thread_ids: ["not-a-uuid"] }, /thread_ids/],
      [{ thread_ids: [], strategy: "shred" }, /strategy/],
    ];
    for (const [payload, field] of cases) {
      const response = await call(s, "POST", "/threads/prune", payload);
      expect(response.status).toBe(422);
      expect(response.json.detail).toMatch(field);
    }
  });
});
