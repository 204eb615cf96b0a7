import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { eventually, newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, raw, runDrivers, statusOf } from "../../test/support/runs.js";
import { streamRefusal } from "../../test/support/http.js";

const lastAi = (values: unknown) =>
  (values as { messages: { type: string; content: string }[] }).messages.filter((m) => m.type === "ai").at(-1)?.content;

describe.each(runDrivers)("thread runs: create, read, wait, join, delete ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  it("creates a background run, reports it via Content-Location, and joins its final values", async () => {
    const thread = await newThread(server.storage);
    let created: unknown;
    const run = await client.runs.create(thread, "echo", { input: hello, metadata: { tag: "a" }, onRunCreated: (m) => (created = m) });
    expect(run).toMatchObject({ thread_id: thread, status: "pending", metadata: { tag: "a" }, multitask_strategy: "reject" });
    expect(created).toEqual({ run_id: run.run_id, thread_id: thread });
    expect(lastAi(await client.runs.join(thread, run.run_id))).toBe("echo: hi");
    expect(await client.runs.get(thread, run.run_id)).toMatchObject({ run_id: run.run_id, status: "success" });
  });

  it("lists a thread's runs newest first, with limit, offset, status and select", async () => {
    const thread = await newThread(server.storage);
    await client.runs.wait(thread, "echo", { input: hello, metadata: { n: 1 } });
    await client.runs.wait(thread, "failing", { input: hello, raiseError: false });
    await client.runs.wait(thread, "echo", { input: hello });
    const all = await client.runs.list(thread);
    expect(all.map((r) => r.status)).toEqual(["success", "error", "success"]);
    expect((await client.runs.list(thread, { limit: 1, offset: 1 })).map((r) => r.status)).toEqual(["error"]);
    expect((await client.runs.list(thread, { status: "error" })).map((r) => r.run_id)).toEqual([all[1]!.run_id]);
    const selected = await client.runs.list(thread, { select: ["run_id", "status"] });
    expect(selected[0]).toEqual({ run_id: all[0]!.run_id, status: "success" });
    const byMetadata = await raw(`${server.url}/threads/${thread}/runs?metadata=${encodeURIComponent('{"n":1}')}`, "GET");
    expect((byMetadata.body as { run_id: string }[]).map((r) => r.run_id)).toEqual([all[2]!.run_id]);
  });

  it("waits for final values, and raises a failed run's error as the SDK expects", async () => {
    const thread = await newThread(server.storage);
    expect(lastAi(await client.runs.wait(thread, "echo", { input: hello }))).toBe("echo: hi");
    await expect(client.runs.wait(thread, "failing", { input: hello })).rejects.toThrow(/graph failed on purpose/);
    const quiet = await client.runs.wait(thread, "failing", { input: hello, raiseError: false });
    expect(quiet).toEqual({ __error__: { error: "Error", message: "graph failed on purpose" } });
  });

  it("joins a failed run with its own error after a later run of the thread succeeded", async () => {
    const thread = await newThread(server.storage);
    const failed = await client.runs.create(thread, "failing", { input: hello });
    const error = { __error__: { error: "Error", message: "graph failed on purpose" } };
    expect(await client.runs.join(thread, failed.run_id)).toEqual(error);
    expect(lastAi(await client.runs.wait(thread, "echo", { input: hello }))).toBe("echo: hi");
    // The thread's error is the latest run's (none); the failed run still answers with its own.
    expect((await client.threads.get(thread)).error).toBeNull();
    expect(await client.runs.join(thread, failed.run_id)).toEqual(error);
  });

  it("keeps a waiting request alive with newlines until a long run ends", async () => {
    const thread = await newThread(server.storage);
    const response = await fetch(`${server.url}/threads/${thread}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: { delayMs: 700 } }),
    });
    expect(response.headers.get("content-location")).toMatch(new RegExp(`^/threads/${thread}/runs/[0-9a-f-]+$`));
    const text = await response.text();
    expect(text.startsWith("\n")).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ steps: [1, 2] });
  });

  it("cancels a waited run when its client goes away with on_disconnect=cancel", async () => {
    const thread = await newThread(server.storage);
    const abort = new AbortController();
    const waiting = client.runs.wait(thread, "slow", { input: { delayMs: 5000 }, onDisconnect: "cancel", signal: abort.signal });
    const settled = waiting.catch((error: Error) => error);
    await eventually(async () => (await client.runs.list(thread))[0]?.status === "running");
    abort.abort();
    expect(await settled).toBeInstanceOf(Error);
    await eventually(async () => (await client.runs.list(thread))[0]?.status === "interrupted");
  });

  it("stops at interrupt() and resumes with a Command", async () => {
    const thread = await newThread(server.storage);
    const stopped = (await client.runs.wait(thread, "approval", { input: { request: "deploy" } })) as Record<string, unknown>;
    expect(stopped).toMatchObject({ request: "deploy", __interrupt__: [{ value: { question: "approve deploy?" } }] });
    expect((await server.storage.threads.get(thread))?.status).toBe("interrupted");
    const resumed = await client.runs.wait(thread, "approval", { command: { resume: "yes" } });
    expect(resumed).toEqual({ request: "deploy", decision: "yes" });
    expect((await server.storage.threads.get(thread))?.status).toBe("idle");
    expect((await client.runs.list(thread)).map((r) => r.status)).toEqual(["success", "success"]);
  });

  it("answers a run stopped at a breakpoint with its values and an empty __interrupt__, then goes on with input null", async () => {
    const thread = await newThread(server.storage);
    const stopped = await client.runs.wait(thread, "slow", { input: { delayMs: 1 }, interruptBefore: ["second"] });
    expect(stopped).toEqual({ delayMs: 1, steps: [1], __interrupt__: [] });
    expect((await client.threads.get(thread)).status).toBe("interrupted");
    expect(await client.runs.wait(thread, "slow", { input: null })).toEqual({ delayMs: 1, steps: [1, 2] });
    expect((await client.threads.get(thread)).status).toBe("idle");
  });

  it("deletes a finished run, refuses an active one (409), and 404s unknown ones", async () => {
    const thread = await newThread(server.storage);
    const active = await client.runs.create(thread, "slow", { input: { delayMs: 3000 } });
    expect(await statusOf(client.runs.delete(thread, active.run_id))).toBe(409);
    await client.runs.cancel(thread, active.run_id, true);
    expect(await statusOf(client.runs.delete(thread, active.run_id))).toBe(200);
    expect(await statusOf(client.runs.get(thread, active.run_id))).toBe(404);
    expect(await statusOf(client.runs.delete(thread, active.run_id))).toBe(404);
    const deleted = await raw(`${server.url}/threads/${thread}/runs/${crypto.randomUUID()}`, "DELETE");
    expect(deleted.status).toBe(404);
  });

  it("answers 404 for unknown threads, runs and assistants, and for a run read through another thread", async () => {
    const thread = await newThread(server.storage);
    const other = await newThread(server.storage);
    const run = await client.runs.create(thread, "echo", { input: hello });
    const unknown = crypto.randomUUID();
    expect(await statusOf(client.runs.get(other, run.run_id))).toBe(404);
    expect(await statusOf(client.runs.join(other, run.run_id))).toBe(404);
    expect(await statusOf(client.runs.get(thread, unknown))).toBe(404);
    expect(await statusOf(client.runs.list(unknown))).toBe(404);
    expect(await statusOf(client.runs.create(unknown, "echo", { input: hello }))).toBe(404);
    expect(await statusOf(client.runs.wait(unknown, "echo", { input: hello }))).toBe(404);
    expect(await statusOf(client.runs.create(thread, "no-such-graph", { input: hello }))).toBe(404);
    expect(await statusOf(client.runs.cancel(thread, unknown))).toBe(404);
    const stream = await raw(`${server.url}/threads/${thread}/runs/${unknown}/stream`, "GET");
    expect(streamRefusal(stream)).toBe(404);
    await client.runs.join(thread, run.run_id);
  });

  it("creates the thread with if_not_exists=create, stamped with the graph and the run's metadata", async () => {
    const thread = crypto.randomUUID();
    const values = await client.runs.wait(thread, "echo", { input: hello, ifNotExists: "create" });
    expect(lastAi(values)).toBe("echo: hi");
    expect((await server.storage.threads.get(thread))?.metadata).toMatchObject({ graph_id: "echo" });
  });

  it("puts x-* request headers (not credentials) into the run's configurable, as the official server does", async () => {
    const thread = await newThread(server.storage);
    const withHeaders = new Client({ apiUrl: server.url, apiKey: "secret", defaultHeaders: { "x-tenant-name": "acme" } });
    const run = await withHeaders.runs.create(thread, "echo", { input: hello, config: { configurable: { mine: 1 } } });
    const configurable = ((run as unknown as { kwargs: unknown }).kwargs as { config: { configurable: Record<string, unknown> } }).config
      .configurable;
    expect(configurable).toMatchObject({ "x-tenant-name": "acme", mine: 1, thread_id: thread, run_id: run.run_id });
    expect(configurable).not.toHaveProperty("x-api-key");
    await eventually(async () => (await client.runs.get(thread, run.run_id)).status === "success");
  });
});
