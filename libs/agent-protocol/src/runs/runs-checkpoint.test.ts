import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, raw, runDrivers } from "../../test/support/runs.js";

/**
 * A run named from a checkpoint the thread does not have would start from an empty state and replace the
 * thread's current one. It is refused with 404 before anything is written.
 */
describe.each(runDrivers)("runs from a checkpoint ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  /** What a refused run must leave as it was. */
  async function snapshot(threadId: string) {
    const thread = await client.threads.get(threadId);
    const state = await client.threads.getState(threadId);
    return {
      status: thread.status,
      values: thread.values,
      checkpoint: state.checkpoint.checkpoint_id,
      history: (await client.threads.getHistory(threadId, { limit: 100 })).length,
      runs: (await client.runs.list(threadId, { limit: 100 })).map((run) => run.run_id),
      threads: await client.threads.count(),
    };
  }

  it("answers 404 {detail} for an unknown checkpoint on create, stream and wait, writing nothing", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", { input: hello });
    const before = await snapshot(thread.thread_id);
    const unknown = crypto.randomUUID();
    const bodies = [
      { assistant_id: "echo", input: hello, checkpoint_id: unknown },
      { assistant_id: "echo", input: hello, checkpoint: { checkpoint_id: unknown } },
      { assistant_id: "echo", input: hello, checkpoint: { checkpoint_id: unknown, checkpoint_ns: "" } },
      { assistant_id: "echo", input: hello, config: { configurable: { checkpoint_id: unknown } } },
    ];
    for (const suffix of ["", "/stream", "/wait"]) {
      for (const body of bodies) {
        const response = await raw(`${server.url}/threads/${thread.thread_id}/runs${suffix}`, "POST", body);
        const label = `${suffix || "create"} ${JSON.stringify(body)}`;
        expect(response.status, label).toBe(404);
        expect(response.body, label).toEqual({ detail: expect.stringContaining(unknown) });
      }
    }
    expect(await snapshot(thread.thread_id)).toEqual(before);
  });

  it("answers 404 for a checkpoint of another thread, and on stateless runs, leaving no thread behind", async () => {
    const other = await client.threads.create();
    await client.runs.wait(other.thread_id, "echo", { input: hello });
    const foreign = (await client.threads.getState(other.thread_id)).checkpoint.checkpoint_id!;
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", { input: hello });
    const before = await snapshot(thread.thread_id);

    const onThread = await raw(`${server.url}/threads/${thread.thread_id}/runs/wait`, "POST", {
      assistant_id: "echo",
      input: hello,
      checkpoint_id: foreign,
    });
    expect(onThread.status).toBe(404);
    for (const path of ["/runs", "/runs/stream", "/runs/wait"]) {
      const stateless = await raw(`${server.url}${path}`, "POST", { assistant_id: "echo", input: hello, checkpoint_id: foreign });
      expect(stateless.status, path).toBe(404);
    }
    const missingThread = crypto.randomUUID();
    const created = await raw(`${server.url}/threads/${missingThread}/runs`, "POST", {
      assistant_id: "echo",
      input: hello,
      if_not_exists: "create",
      checkpoint_id: foreign,
    });
    expect(created.status).toBe(404);
    expect(await snapshot(thread.thread_id)).toEqual(before);
    expect((await raw(`${server.url}/threads/${missingThread}`, "GET")).status).toBe(404);
  });

  it("still runs from a checkpoint the thread has (a fork from an earlier state)", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", { input: hello });
    const first = (await client.threads.getState(thread.thread_id)).checkpoint.checkpoint_id!;
    await client.runs.wait(thread.thread_id, "echo", { input: hello });
    for (const body of [{ checkpoint_id: first }, { checkpoint: { checkpoint_id: first } }]) {
      const response = await raw(`${server.url}/threads/${thread.thread_id}/runs/wait`, "POST", {
        assistant_id: "echo",
        input: hello,
        ...body,
      });
      expect(response.status, JSON.stringify(body)).toBe(200);
    }
  });
});
