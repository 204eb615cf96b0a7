import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { eventually } from "@agent-server/engine/testing";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { hello, raw, runDrivers, statusOf } from "../../test/support/runs.js";
import { streamRefusal } from "../../test/support/http.js";

/** Bearer tokens are user names; runs are scoped to the owner of their thread, and stamp it on threads they create. */
const ownerAuth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [`role:${token}`] };
  })
  .on("threads:create_run", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads", ({ user }) => ({ owner: user.identity }));

const backends = runDrivers.filter((d) => d.name !== "memory");

describe.each(backends)("runs under custom auth: scoped through their thread ($name)", (driver) => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  let alice: Client;
  let bob: Client;
  let aliceThread: string;

  beforeAll(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    server = await startTestServer(opened.storage, { app: { auth: ownerAuth } });
    const as = (token: string) => new Client({ apiUrl: server.url, defaultHeaders: { Authorization: `Bearer ${token}` } });
    alice = as("alice");
    bob = as("bob");
    aliceThread = (await server.storage.threads.create({ thread_id: crypto.randomUUID(), metadata: { owner: "alice" } })).thread_id;
  });
  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it("runs as the authenticated user: langgraph_auth_user in the config, the handler's metadata on the run", async () => {
    const run = await alice.runs.create(aliceThread, "echo", {
      input: hello,
      config: { configurable: { langgraph_auth_user_id: "mallory", langgraph_auth_user: { identity: "mallory" } } },
    });
    const configurable = (run as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } }).kwargs.config.configurable;
    expect(configurable).toMatchObject({
      langgraph_auth_user_id: "alice",
      langgraph_auth_user: { identity: "alice" },
      langgraph_auth_permissions: ["role:alice"],
    });
    expect(run.metadata).toMatchObject({ owner: "alice" });
    await alice.runs.join(aliceThread, run.run_id);
  });

  it("hides another user's thread runs: create, list, get, join, stream, cancel and delete answer 404", async () => {
    const run = await alice.runs.create(aliceThread, "slow", { input: { delayMs: 3000 }, multitaskStrategy: "enqueue" });
    expect(await statusOf(bob.runs.create(aliceThread, "echo", { input: hello }))).toBe(404);
    expect(await statusOf(bob.runs.wait(aliceThread, "echo", { input: hello }))).toBe(404);
    expect(await statusOf(bob.runs.list(aliceThread))).toBe(404);
    expect(await statusOf(bob.runs.get(aliceThread, run.run_id))).toBe(404);
    expect(await statusOf(bob.runs.join(aliceThread, run.run_id))).toBe(404);
    expect(await statusOf(bob.runs.cancel(aliceThread, run.run_id))).toBe(404);
    expect(await statusOf(bob.runs.delete(aliceThread, run.run_id))).toBe(404);
    expect(await statusOf(bob.runs.cancelMany({ threadId: aliceThread, runIds: [run.run_id] }))).toBe(404);
    const stream = await raw(`${server.url}/threads/${aliceThread}/runs/${run.run_id}/stream`, "GET", undefined, {
      Authorization: "Bearer bob",
    });
    expect(streamRefusal(stream)).toBe(404);
    // Bulk cancel by status only reaches the caller's own runs.
    await bob.runs.cancelMany({ status: "all" });
    expect(["pending", "running"]).toContain((await alice.runs.get(aliceThread, run.run_id)).status);
    await alice.runs.cancel(aliceThread, run.run_id, true);
    expect((await alice.runs.get(aliceThread, run.run_id)).status).toBe("interrupted");
  });

  it("stamps the owner on the temporary thread of a stateless run, so only its owner can join it", async () => {
    const run = await alice.runs.create(null, "echo", { input: hello, onCompletion: "keep" as never, streamResumable: true });
    expect((await server.storage.threads.get(run.thread_id))?.metadata).toMatchObject({ owner: "alice", graph_id: "echo" });
    await eventually(async () => (await server.storage.runs.get(run.run_id))?.status === "success");
    const events: string[] = [];
    for await (const part of alice.runs.joinStream(null, run.run_id, { lastEventId: "-1" })) events.push(part.event);
    expect(events[0]).toBe("metadata");
    const denied = await raw(`${server.url}/runs/${run.run_id}/stream`, "GET", undefined, { Authorization: "Bearer bob" });
    expect(streamRefusal(denied)).toBe(404);
  });

  it("rejects unauthenticated run requests", async () => {
    expect((await raw(`${server.url}/threads/${aliceThread}/runs`, "GET")).status).toBe(401);
    expect((await raw(`${server.url}/runs/wait`, "POST", { assistant_id: "echo", input: hello })).status).toBe(401);
  });
});
