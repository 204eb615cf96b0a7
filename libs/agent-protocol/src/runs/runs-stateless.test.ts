import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { eventually } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { hello, openRunsServer, raw, runDrivers } from "../../test/support/runs.js";
import { streamRefusal } from "../../test/support/http.js";

/** The server's values (the official schema); the SDK 1.15 types name them "complete" | "continue". */
const keep = "keep" as never;

const lastAi = (values: unknown) =>
  (values as { messages: { type: string; content: string }[] }).messages.filter((m) => m.type === "ai").at(-1)?.content;

describe.each(runDrivers)("stateless runs ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  it("streams a stateless run; its temporary thread is deleted when it ends (on_completion=delete)", async () => {
    let created: { run_id: string; thread_id?: string } | undefined;
    const parts: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(null, "echo", { input: hello, onRunCreated: (m) => (created = m) })) {
      parts.push(part as { event: string; data: unknown });
    }
    expect(created).toEqual({ run_id: expect.any(String), thread_id: undefined });
    expect(parts[0]).toMatchObject({ event: "metadata", data: { run_id: created!.run_id } });
    expect(lastAi(parts.at(-1)!.data)).toBe("echo: hi");
    await eventually(async () => (await server.storage.runs.get(created!.run_id)) === null);
  });

  it("waits for a stateless run's values", async () => {
    expect(lastAi(await client.runs.wait(null, "echo", { input: hello }))).toBe("echo: hi");
    expect(await client.runs.wait(null, "failing", { input: hello, raiseError: false })).toMatchObject({
      __error__: { message: "graph failed on purpose" },
    });
  });

  it("keeps the thread with on_completion=keep, deletes it by default", async () => {
    const kept = await client.runs.create(null, "echo", { input: hello, onCompletion: keep });
    const dropped = await client.runs.create(null, "echo", { input: hello });
    expect(kept.thread_id).not.toBe(dropped.thread_id);
    await eventually(async () => (await server.storage.runs.get(kept.run_id))?.status === "success");
    // The terminal status is written before settlement updates the thread: wait for that step too.
    await eventually(async () => (await server.storage.threads.get(kept.thread_id))?.status === "idle");
    const thread = await server.storage.threads.get(kept.thread_id);
    expect(thread?.metadata).toMatchObject({ graph_id: "echo" });
    expect(lastAi(thread?.values)).toBe("echo: hi");
    await eventually(async () => (await server.storage.threads.get(dropped.thread_id)) === null);
  });

  it("creates a batch of background runs in request order, and rejects an empty batch", async () => {
    const runs = await client.runs.createBatch([
      { assistantId: "echo", input: hello, onCompletion: keep, metadata: { n: 1 } },
      { assistantId: "slow", input: { delayMs: 10 }, onCompletion: keep, metadata: { n: 2 } },
    ]);
    expect(runs.map((r) => r.metadata)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(new Set(runs.map((r) => r.thread_id)).size).toBe(2);
    for (const run of runs) await eventually(async () => (await server.storage.runs.get(run.run_id))?.status === "success");
    expect((await raw(`${server.url}/runs/batch`, "POST", [])).status).toBe(422);
    expect((await raw(`${server.url}/runs/batch`, "POST", [{ assistant_id: "echo" }, { assistant_id: "nope" }])).status).toBe(404);
  });

  it("joins a run's stream by run id alone (GET /runs/{run_id}/stream), replaying a resumable one", async () => {
    const run = await client.runs.create(null, "echo", { input: hello, onCompletion: keep, streamResumable: true });
    await eventually(async () => (await server.storage.runs.get(run.run_id))?.status === "success");
    const replayed: { id?: string; event: string }[] = [];
    for await (const part of client.runs.joinStream(null, run.run_id, { lastEventId: "-1" })) replayed.push(part as { event: string });
    expect(replayed.map((p) => p.event)).toEqual(["metadata", "values", "values"]);
    expect(replayed.every((p) => p.id !== undefined)).toBe(true);
    expect(streamRefusal(await raw(`${server.url}/runs/${crypto.randomUUID()}/stream`, "GET"))).toBe(404);
  });

  it("answers 404 for an unknown assistant before any stream or wait starts", async () => {
    for (const path of ["/runs", "/runs/stream", "/runs/wait"]) {
      const response = await raw(`${server.url}${path}`, "POST", { assistant_id: "no-such-graph", input: hello });
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toContain("application/json");
    }
  });
});
