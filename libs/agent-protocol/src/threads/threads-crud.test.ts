import { describe, expect, it } from "vitest";
import { call, runToEnd, say, statusOf, threadDrivers, useServer } from "../../test/support/threads.js";

describe.each(threadDrivers)("/threads CRUD on $name", (driver) => {
  const server = useServer(driver);

  it("creates a thread with a given id and metadata, and honours if_exists", async () => {
    const { client } = server();
    const threadId = crypto.randomUUID();
    const thread = await client.threads.create({ threadId, metadata: { owner: "ann" } });
    expect(thread).toMatchObject({ thread_id: threadId, metadata: { owner: "ann" }, status: "idle", values: null, interrupts: {} });
    expect(await statusOf(client.threads.create({ threadId }))).toBe(409);
    const again = await client.threads.create({ threadId, ifExists: "do_nothing", metadata: { owner: "bob" } });
    expect(again.metadata).toEqual({ owner: "ann" });
    const generated = await client.threads.create();
    expect(generated.thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await client.threads.get(threadId)).toEqual(thread);
  });

  it("patches metadata by merging it, with or without a response body", async () => {
    const { client } = server();
    const { thread_id } = await client.threads.create({ metadata: { a: 1, b: 1 } });
    const patched = await client.threads.update(thread_id, { metadata: { b: 2, c: 3 } });
    expect(patched.metadata).toEqual({ a: 1, b: 2, c: 3 });
    expect(await client.threads.update(thread_id, { metadata: { d: 4 }, returnMinimal: true })).toBeUndefined();
    expect((await client.threads.get(thread_id)).metadata).toEqual({ a: 1, b: 2, c: 3, d: 4 });
  });

  it("searches by ids, metadata, values and status with paging, sorting and select; counts", async () => {
    const { client } = server();
    const tag = crypto.randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.threads.create({ metadata: { tag, i } })).thread_id);
    await runToEnd(server(), ids[1], "echo", say("marker"));

    const all = await client.threads.search({ metadata: { tag } });
    expect(all.map((t) => t.thread_id)).toEqual([...ids].reverse());
    const oldestFirst = await client.threads.search({ metadata: { tag }, sortBy: "created_at", sortOrder: "asc", limit: 2, offset: 1 });
    expect(oldestFirst.map((t) => t.thread_id)).toEqual([ids[1], ids[2]]);
    expect((await client.threads.search({ ids: [ids[0], ids[2]] })).map((t) => t.thread_id).sort()).toEqual([ids[0], ids[2]].sort());
    const byValues = await client.threads.search({ values: { messages: [{ content: "marker" }] } });
    expect(byValues.map((t) => t.thread_id)).toEqual([ids[1]]);
    const idle = await client.threads.search({ metadata: { tag }, status: "idle" });
    expect(idle).toHaveLength(3);
    const selected = await client.threads.search({ ids: [ids[0]], select: ["thread_id", "metadata"] });
    expect(selected).toEqual([{ thread_id: ids[0], metadata: { tag, i: 0 } }]);

    expect(await client.threads.count({ metadata: { tag } })).toBe(3);
    expect(await client.threads.count({ metadata: { tag }, status: "busy" })).toBe(0);
    expect(await client.threads.count({ metadata: { tag, i: 2 } })).toBe(1);
  });

  it("deletes a thread with its runs and checkpoints; later reads are 404", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create();
    const run = await runToEnd(s, thread_id, "echo", say("bye"));
    await s.client.threads.delete(thread_id);
    expect(await statusOf(s.client.threads.get(thread_id))).toBe(404);
    expect(await statusOf(s.client.threads.getState(thread_id))).toBe(404);
    expect(await statusOf(s.client.threads.delete(thread_id))).toBe(404);
    expect(await s.storage.runs.get(run.run_id)).toBeNull();
    expect(await s.storage.checkpointer.getTuple({ configurable: { thread_id, checkpoint_ns: "" } })).toBeUndefined();
  });

  it("cancels a running run before deleting its thread", async () => {
    const s = server();
    const { thread_id } = await s.client.threads.create();
    const run = await s.engine.createRun({ assistant_id: "slow", input: { delayMs: 2000 } }, { threadId: thread_id });
    for (let i = 0; i < 200 && (await s.storage.runs.get(run.run_id))?.status !== "running"; i++)
      await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    await s.client.threads.delete(thread_id);
    expect(Date.now() - started).toBeLessThan(1900);
    expect(await s.storage.threads.get(thread_id)).toBeNull();
    expect(await s.storage.runs.get(run.run_id)).toBeNull();
  });

  it("seeds state from supersteps on create, and creates nothing when seeding fails", async () => {
    const { client } = server();
    const thread = await client.threads.create({
      graphId: "approval",
      supersteps: [{ updates: [{ values: { request: "seeded" }, asNode: "__start__" }] }],
    });
    expect(thread.metadata).toEqual({ graph_id: "approval" });
    expect(thread.values).toEqual({ request: "seeded" });
    const state = await client.threads.getState(thread.thread_id);
    expect(state).toMatchObject({ values: { request: "seeded" }, next: ["ask"] });

    const threadId = crypto.randomUUID();
    const noGraph = await call(server(), "POST", "/threads", {
      thread_id: threadId,
      supersteps: [{ updates: [{ values: { request: "x" }, as_node: "__start__" }] }],
    });
    expect(noGraph.status).toBe(422);
    expect(noGraph.json.detail).toMatch(/graph/);
    expect(await statusOf(client.threads.get(threadId))).toBe(404);
    const badNode = await call(server(), "POST", "/threads", {
      thread_id: threadId,
      metadata: { graph_id: "approval" },
      supersteps: [{ updates: [{ values: { request: "x" }, as_node: "nowhere" }] }],
    });
    expect(badNode.status).toBe(422);
    expect(await statusOf(client.threads.get(threadId))).toBe(404);
  });

  it("answers 404 for unknown threads and 422 naming the field for bad input", async () => {
    const s = server();
    const unknown = crypto.randomUUID();
    expect(await statusOf(s.client.threads.get(unknown))).toBe(404);
    expect(await statusOf(s.client.threads.update(unknown, { metadata: { a: 1 } }))).toBe(404);
    expect(await statusOf(s.client.threads.delete(unknown))).toBe(404);

    const badId = await call(s, "GET", "/threads/not-a-uuid");
    expect(badId.status).toBe(422);
    expect(badId.json.detail).toMatch(/thread_id/);
    const cases: Array<[string, string, unknown, RegExp]> = [
      ["POST", "/threads", { thread_id: "nope" }, /thread_id/],
      ["POST", "/threads", { metadata: "x" }, /metadata/],
      ["POST", "/threads", { if_exists: "overwrite" }, /if_exists/],
      ["POST", "/threads", { supersteps: [{ updates: [] }] }, /supersteps/],
      ["POST", "/threads/search", { limit: 0 }, /limit/],
      ["POST", "/threads/search", { status: "sleeping" }, /status/],
      ["POST", "/threads/search", { sort_by: "values" }, /sort_by/],
      ["POST", "/threads/search", { select: ["password"] }, /select/],
      ["POST", "/threads/search", { ids: ["x"] }, /ids/],
      ["POST", "/threads/count", { values: [1] }, /values/],
      ["PATCH", `/threads/${unknown}`, { metadata: 5 }, /metadata/],
    ];
    for (const [method, path, payload, field] of cases) {
      const response = await call(s, method, path, payload);
      expect([path, response.status]).toEqual([path, 422]);
      expect(response.json.detail).toMatch(field);
    }
  });

  it("documents its routes in /openapi.json", async () => {
    const doc = (await call(server(), "GET", "/openapi.json")).json as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/threads",
        "/threads/search",
        "/threads/count",
        "/threads/prune",
        "/threads/{thread_id}",
        "/threads/{thread_id}/copy",
        "/threads/{thread_id}/state",
        "/threads/{thread_id}/state/{checkpoint_id}",
        "/threads/{thread_id}/state/checkpoint",
        "/threads/{thread_id}/history",
      ]),
    );
  });
});
