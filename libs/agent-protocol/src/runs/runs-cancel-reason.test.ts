import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { eventually, newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { openRunsServer, raw, runDrivers } from "../../test/support/runs.js";

const slow = (delayMs: number) => ({ input: { delayMs } });

/**
 * `cancel_reason` on runs (why a run was cancelled, read back on get, list and stream of runs) and
 * `select` on runs list: only the named fields, an unknown name answers 422.
 */
describe.each(runDrivers)("run cancel reasons and select ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  const running = (thread: string, runId: string) => eventually(async () => (await client.runs.get(thread, runId)).status === "running");
  const reasonOf = async (thread: string, runId: string) => (await client.runs.get(thread, runId)).cancel_reason;

  it("a run that was not cancelled reads cancel_reason null; a client's cancel reads cancel:client", async () => {
    const thread = await newThread(server.storage);
    const done = await client.runs.create(thread, "slow", slow(1));
    await client.runs.join(thread, done.run_id);
    expect(await client.runs.get(thread, done.run_id)).toMatchObject({ status: "success", cancel_reason: null });

    const run = await client.runs.create(thread, "slow", slow(5000));
    await running(thread, run.run_id);
    await client.runs.cancel(thread, run.run_id, true);
    expect(await client.runs.get(thread, run.run_id)).toMatchObject({ status: "interrupted", cancel_reason: "cancel:client" });
  });

  it("reason taken (steering): a queued run cancelled with it reads taken:client; with rollback it is refused (422)", async () => {
    const thread = await newThread(server.storage);
    const first = await client.runs.create(thread, "slow", slow(5000));
    const queued = await client.runs.create(thread, "slow", { ...slow(10), multitaskStrategy: "enqueue" });
    await running(thread, first.run_id);
    const refused = await raw(`${server.url}/threads/${thread}/runs/${queued.run_id}/cancel?action=rollback&reason=taken`, "POST");
    expect(refused.status).toBe(422);
    expect((await raw(`${server.url}/threads/${thread}/runs/${queued.run_id}/cancel?reason=other`, "POST")).status).toBe(422);
    expect((await client.runs.get(thread, queued.run_id)).status).toBe("pending");

    await client.runs.cancel(thread, queued.run_id, true, "interrupt", { reason: "taken" });
    expect(await client.runs.get(thread, queued.run_id)).toMatchObject({ status: "interrupted", cancel_reason: "taken:client" });
    // A running run cancelled as taken reads the same.
    await client.runs.cancel(thread, first.run_id, true, "interrupt", { reason: "taken" });
    expect(await reasonOf(thread, first.run_id)).toBe("taken:client");
  });

  it("multitask interrupt records the run that interrupted it; on_disconnect=cancel records the client going away", async () => {
    const thread = await newThread(server.storage);
    const first = await client.runs.create(thread, "slow", slow(5000));
    await running(thread, first.run_id);
    const second = await client.runs.create(thread, "slow", { ...slow(10), multitaskStrategy: "interrupt" });
    await client.runs.join(thread, second.run_id);
    expect(await client.runs.get(thread, first.run_id)).toMatchObject({
      status: "interrupted",
      cancel_reason: `interrupt:${second.run_id}`,
    });
    expect(await reasonOf(thread, second.run_id)).toBeNull();

    const abort = new AbortController();
    const waiting = client.runs.wait(thread, "slow", { ...slow(5000), onDisconnect: "cancel", signal: abort.signal });
    const settled = waiting.catch((error: Error) => error);
    await eventually(async () => (await client.runs.list(thread))[0]?.status === "running");
    abort.abort();
    expect(await settled).toBeInstanceOf(Error);
    await eventually(async () => (await client.runs.list(thread))[0]?.status === "interrupted");
    expect((await client.runs.list(thread))[0]?.cancel_reason).toBe("disconnect:client");
  });

  it("runs.list with select returns only the named fields, cancel_reason included; an unknown field is a 422", async () => {
    const thread = await newThread(server.storage);
    const done = await client.runs.create(thread, "slow", slow(1));
    await client.runs.join(thread, done.run_id);
    const run = await client.runs.create(thread, "slow", slow(5000));
    await running(thread, run.run_id);
    await client.runs.cancel(thread, run.run_id, true);

    const selected = await client.runs.list(thread, { select: ["run_id", "cancel_reason"] });
    expect(selected).toEqual([
      { run_id: run.run_id, cancel_reason: "cancel:client" },
      { run_id: done.run_id, cancel_reason: null },
    ]);
    expect(await client.runs.list(thread, { select: ["status"], limit: 1 })).toEqual([{ status: "interrupted" }]);
    const all = await client.runs.list(thread);
    expect(all[0]).toMatchObject({ run_id: run.run_id, cancel_reason: "cancel:client", multitask_strategy: "reject" });

    const unknown = await raw(`${server.url}/threads/${thread}/runs?select=run_id&select=secret`, "GET");
    expect(unknown.status).toBe(422);
    expect((unknown.body as { detail: string }).detail).toMatch(/select/);
  });

  it("select on threads.getState and getHistory keeps working", async () => {
    const thread = await newThread(server.storage);
    await client.runs.wait(thread, "slow", slow(1));
    const state = await client.threads.getState(thread, undefined, { select: ["values.steps"] });
    expect(state).toEqual({ values: { steps: [1, 2] } });
    const history = await client.threads.getHistory(thread, { limit: 1, select: ["next"] });
    expect(history).toEqual([{ next: [] }]);
  });
});
