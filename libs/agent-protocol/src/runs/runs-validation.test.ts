import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { eventually, newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, raw, runDrivers } from "../../test/support/runs.js";

describe.each(runDrivers)("run request validation and server-private facts ($name)", (driver) => {
  let server: TestServer;
  let client: Client;
  let thread: string;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
    thread = await newThread(server.storage);
  });
  afterAll(() => server.close());

  const post = (path: string, body: unknown) => raw(`${server.url}${path}`, "POST", body);

  it("answers 422 naming the field for invalid bodies, on every create route", async () => {
    const cases: [Record<string, unknown> | string, RegExp][] = [
      [{ assistant_id: "echo", stream_mode: "bogus" }, /stream_mode/],
      [{ assistant_id: "echo", stream_mode: ["values", "bogus"] }, /stream_mode/],
      [{ assistant_id: "echo", multitask_strategy: "x" }, /multitask_strategy/],
      [{ input: hello }, /assistant_id/],
      [{ assistant_id: "echo", webhook: "not a url" }, /webhook/],
      [{ assistant_id: "echo", after_seconds: -1 }, /after_seconds/],
      // Beyond one year (9e12 s is past the largest date): refused, not a 500 from date math.
      [{ assistant_id: "echo", after_seconds: 9e12 }, /after_seconds/],
      [{ assistant_id: "echo", after_seconds: 365 * 24 * 3600 + 1 }, /after_seconds/],
      [{ assistant_id: "echo", on_disconnect: "explode" }, /on_disconnect/],
      [{ assistant_id: "echo", if_not_exists: "maybe" }, /if_not_exists/],
      [{ assistant_id: "echo", interrupt_before: "echo" }, /interrupt_before/],
      [{ assistant_id: "echo", command: { update: 5 } }, /command/],
      [{ assistant_id: "echo", config: { recursion_limit: "many" } }, /config/],
    ];
    for (const path of [
      `/threads/${thread}/runs`,
      `/threads/${thread}/runs/stream`,
      `/threads/${thread}/runs/wait`,
      "/runs",
      "/runs/wait",
    ]) {
      for (const [body, field] of cases) {
        const response = await post(path, body);
        expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(422);
        expect((response.body as { detail: string }).detail, `${path} ${JSON.stringify(body)}`).toMatch(field);
      }
    }
    expect((await client.runs.list(thread)).length).toBe(0);
  });

  it("answers 422 for malformed path ids and query values, never 500", async () => {
    expect((await raw(`${server.url}/threads/not-a-uuid/runs`, "GET")).status).toBe(422);
    expect((await raw(`${server.url}/threads/${thread}/runs/not-a-uuid`, "GET")).status).toBe(422);
    expect((await raw(`${server.url}/threads/${thread}/runs?limit=0`, "GET")).status).toBe(422);
    expect((await raw(`${server.url}/threads/${thread}/runs?status=bogus`, "GET")).status).toBe(422);
    expect((await raw(`${server.url}/threads/${thread}/runs?metadata=%7Bnope`, "GET")).status).toBe(422);
    expect((await raw(`${server.url}/threads/${thread}/runs/${crypto.randomUUID()}/cancel?wait=maybe`, "POST")).status).toBe(422);
    expect((await post("/runs/cancel", { status: "finished" })).status).toBe(422);
  });

  it("accepts unknown fields and the SDK's extras (feedback_keys, langsmith_tracer, durability) without acting on them", async () => {
    const response = await post(`/threads/${thread}/runs/wait`, {
      assistant_id: "echo",
      input: hello,
      feedback_keys: ["score"],
      langsmith_tracer: { project_name: "p", example_id: "e" },
      durability: "async",
      checkpoint_during: true,
      strict_resume: false,
      something_new: { x: 1 },
    });
    expect(response.status).toBe(200);
    expect((response.body as { messages: unknown[] }).messages).toHaveLength(2);
  });

  it("never lets a body, its metadata or its config mark a run for result capture (RunInternal)", async () => {
    const response = await post(`/threads/${thread}/runs`, {
      assistant_id: "echo",
      input: hello,
      metadata: { captureResult: true, taskId: "t-1", internal: { captureResult: true } },
      config: { configurable: { captureResult: true, internal: { captureResult: true, taskId: "t-1" } } },
      context: { captureResult: true },
      internal: { captureResult: true, taskId: "t-1" },
      captureResult: true,
      taskId: "t-1",
      multitask_strategy: "enqueue",
    });
    expect(response.status).toBe(200);
    const run = response.body as { run_id: string; metadata: Record<string, unknown> };
    // The metadata is the caller's to keep (it is just metadata); it sets nothing server-private.
    expect(run.metadata).toMatchObject({ captureResult: true });
    const streamed = await client.runs.wait(thread, "echo", {
      input: hello,
      metadata: { captureResult: true },
      config: { configurable: { captureResult: true } },
      multitaskStrategy: "enqueue",
    });
    expect(streamed).toBeTruthy();
    await eventually(async () => (await server.storage.runs.get(run.run_id))?.status === "success");
    for (const listed of await client.runs.list(thread)) {
      const internal = await server.storage.runs.getInternal(listed.run_id);
      expect(internal?.captureResult, listed.run_id).toBeFalsy();
      expect(internal?.taskId, listed.run_id).toBeUndefined();
      expect(await server.storage.runs.getResult?.(listed.run_id), listed.run_id).toBeNull();
    }
  });

  it("documents every runs route in /openapi.json", async () => {
    const doc = (await raw(`${server.url}/openapi.json`, "GET")).body as { paths: Record<string, Record<string, unknown>> };
    const expected: [string, string][] = [
      ["/threads/{thread_id}/runs", "get"],
      ["/threads/{thread_id}/runs", "post"],
      ["/threads/{thread_id}/runs/stream", "post"],
      ["/threads/{thread_id}/runs/wait", "post"],
      ["/threads/{thread_id}/runs/{run_id}", "get"],
      ["/threads/{thread_id}/runs/{run_id}", "delete"],
      ["/threads/{thread_id}/runs/{run_id}/join", "get"],
      ["/threads/{thread_id}/runs/{run_id}/stream", "get"],
      ["/threads/{thread_id}/runs/{run_id}/cancel", "post"],
      ["/runs/cancel", "post"],
      ["/runs", "post"],
      ["/runs/stream", "post"],
      ["/runs/wait", "post"],
      ["/runs/batch", "post"],
      ["/runs/{run_id}/stream", "get"],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });
});
