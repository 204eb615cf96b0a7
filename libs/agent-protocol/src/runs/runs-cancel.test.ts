import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { eventually, newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { openRunsServer, raw, runDrivers, statusOf } from "../../test/support/runs.js";

const slow = (delayMs: number) => ({ input: { delayMs } });

describe.each(runDrivers)("cancelling runs and multitask strategies over HTTP ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  const running = (thread: string, runId: string) => eventually(async () => (await client.runs.get(thread, runId)).status === "running");
  const statusIs = (thread: string, runId: string, status: string) =>
    eventually(async () => (await client.runs.get(thread, runId)).status === status);

  it("interrupts a running run (wait=1): it ends interrupted and the thread is free again", async () => {
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "slow", slow(5000));
    await running(thread, run.run_id);
    await client.runs.cancel(thread, run.run_id, true, "interrupt");
    expect((await client.runs.get(thread, run.run_id)).status).toBe("interrupted");
    expect((await server.storage.threads.get(thread))?.status).toBe("idle");
    const next = await client.runs.wait(thread, "slow", slow(10));
    expect(next).toMatchObject({ steps: [1, 2] });
  });

  it("rolls a run back (wait=1): the run and the checkpoints it wrote are gone", async () => {
    const thread = await newThread(server.storage);
    await client.runs.wait(thread, "slow", slow(10));
    const run = await client.runs.create(thread, "slow", slow(400));
    // Let it write a checkpoint of its own (after the first step), then roll it back.
    await running(thread, run.run_id);
    await new Promise((r) => setTimeout(r, 500));
    await client.runs.cancel(thread, run.run_id, true, "rollback");
    expect(await statusOf(client.runs.get(thread, run.run_id))).toBe(404);
    expect((await client.runs.list(thread)).length).toBe(1);
    const state = await server.storage.checkpointer.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } });
    expect(state?.checkpoint.channel_values).toMatchObject({ steps: [1, 2] });
    expect((state?.metadata as Record<string, unknown> | undefined)?.run_id).not.toBe(run.run_id);
  });

  it("answers 202 without wait and 204 with wait, 404 for unknown runs, 422 for a bad action", async () => {
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "slow", slow(5000));
    const base = `${server.url}/threads/${thread}/runs`;
    expect((await raw(`${base}/${run.run_id}/cancel?wait=0&action=interrupt`, "POST")).status).toBe(202);
    await statusIs(thread, run.run_id, "interrupted");
    expect((await raw(`${base}/${run.run_id}/cancel?wait=true`, "POST")).status).toBe(204);
    expect((await raw(`${base}/${crypto.randomUUID()}/cancel`, "POST")).status).toBe(404);
    const bad = await raw(`${base}/${run.run_id}/cancel?action=explode`, "POST");
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: string }).detail).toMatch(/action/);
  });

  it("bulk-cancels by run ids within a thread, and by status", async () => {
    const thread = await newThread(server.storage);
    const first = await client.runs.create(thread, "slow", slow(5000));
    const queued = await client.runs.create(thread, "slow", { ...slow(5000), multitaskStrategy: "enqueue" });
    await running(thread, first.run_id);
    await client.runs.cancelMany({ threadId: thread, runIds: [first.run_id, queued.run_id] });
    await statusIs(thread, first.run_id, "interrupted");
    await statusIs(thread, queued.run_id, "interrupted");

    const other = await newThread(server.storage);
    const blocker = await client.runs.create(other, "slow", slow(5000));
    const pending = await client.runs.create(other, "slow", { ...slow(5000), multitaskStrategy: "enqueue" });
    await running(other, blocker.run_id);
    await client.runs.cancelMany({ status: "pending" });
    await statusIs(other, pending.run_id, "interrupted");
    expect((await client.runs.get(other, blocker.run_id)).status).toBe("running");
    await client.runs.cancelMany({ status: "all", action: "rollback" });
    await eventually(async () => (await statusOf(client.runs.get(other, blocker.run_id))) === 404);

    const missing = await raw(`${server.url}/runs/cancel`, "POST", { thread_id: thread, run_ids: [crypto.randomUUID()] });
    expect(missing.status).toBe(404);
    expect((await raw(`${server.url}/runs/cancel`, "POST", {})).status).toBe(422);
    expect((await raw(`${server.url}/runs/cancel`, "POST", { run_ids: [first.run_id] })).status).toBe(422);
  });

  it("multitask reject: a second run on a busy thread is refused with 422, as the official JS server does", async () => {
    const thread = await newThread(server.storage);
    const run = await client.runs.create(thread, "slow", slow(5000));
    const refused = await raw(`${server.url}/threads/${thread}/runs`, "POST", { assistant_id: "slow", input: { delayMs: 1 } });
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: string }).detail).toMatch(/already running a task/);
    expect(await statusOf(client.runs.stream(thread, "slow", slow(1)).next())).toBe(422);
    await client.runs.cancel(thread, run.run_id, true);
  });

  it("multitask interrupt: the running run is interrupted, the new one completes", async () => {
    const thread = await newThread(server.storage);
    const first = await client.runs.create(thread, "slow", slow(5000));
    await running(thread, first.run_id);
    const values = await client.runs.wait(thread, "slow", { ...slow(10), multitaskStrategy: "interrupt" });
    expect((await client.runs.get(thread, first.run_id)).status).toBe("interrupted");
    expect(values).toMatchObject({ steps: [1, 2] });
  });

  it("multitask rollback: the running run is erased, the new one completes", async () => {
    const thread = await newThread(server.storage);
    const first = await client.runs.create(thread, "slow", slow(5000));
    await running(thread, first.run_id);
    const values = await client.runs.wait(thread, "slow", { ...slow(10), multitaskStrategy: "rollback" });
    expect(values).toMatchObject({ steps: [1, 2] });
    await eventually(async () => (await statusOf(client.runs.get(thread, first.run_id))) === 404);
    expect((await client.runs.list(thread)).length).toBe(1);
  });

  it("multitask enqueue: the new run waits its turn, then both complete in order", async () => {
    const thread = await newThread(server.storage);
    const first = await client.runs.create(thread, "slow", slow(300));
    const second = await client.runs.create(thread, "slow", { ...slow(10), multitaskStrategy: "enqueue" });
    expect(second.status).toBe("pending");
    const values = await client.runs.join(thread, second.run_id);
    expect((await client.runs.get(thread, first.run_id)).status).toBe("success");
    expect(values).toMatchObject({ steps: [1, 2, 1, 2] });
  });
});
