import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { drivers } from "@agent-server/testing";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { command, ok, RawSocket, readSse, says, sleep, socketAnswer, terminals } from "../../test/support/thread-stream.js";

/**
 * The thread streaming routes under custom auth: the documented resource-owner setup (bearer tokens are
 * the user names), so another user's thread reads as missing on every transport, and a handler that
 * refuses everything answers 403, as on the REST routes.
 */

const ownerAuth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [] };
  })
  .on("threads:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads:create_run", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads", ({ user }) => ({ owner: user.identity }));

const denyAll = new Auth().authenticate(() => ({ identity: "carol", permissions: [] })).on("*", () => false);

const memory = drivers.find((d) => d.name === "memory")!;
const as = (user: string) => ({ authorization: `Bearer ${user}` });

async function serverWith(auth: Auth): Promise<{ server: TestServer; dispose: () => Promise<void> }> {
  const opened = await memory.open();
  return { server: await startTestServer(opened.storage, { app: { auth } }), dispose: opened.dispose };
}

describe("thread streaming with owner-scoped custom auth", () => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  let aliceThread: string;
  beforeAll(async () => {
    ({ server, dispose } = await serverWith(ownerAuth));
    aliceThread = crypto.randomUUID();
    await ok(server.url, aliceThread, "run.start", { assistant_id: "echo", input: says("secret") }, as("alice"));
    await readSse(server.url, aliceThread, { channels: ["lifecycle"] }, terminals(1), { headers: as("alice") });
  });
  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it("refuses requests without valid credentials with 401 on every route", async () => {
    expect((await command(server.url, aliceThread, "state.get", {})).status).toBe(401);
    expect((await command(server.url, aliceThread, "state.get", {}, { headers: as("mallory") })).status).toBe(401);
    expect((await readSse(server.url, aliceThread, { channels: ["values"] }, () => true)).status).toBe(401);
    // Refused by authentication before any route: the handshake itself is answered 401.
    expect(await socketAnswer(server.url, aliceThread)).toEqual({ status: 401 });
  });

  it("stamps the owner on the thread run.start creates, and serves its owner on every transport", async () => {
    const response = await fetch(`${server.url}/threads/${aliceThread}`, { headers: as("alice") });
    expect(((await response.json()) as { metadata: Record<string, unknown> }).metadata).toMatchObject({ owner: "alice" });
    const { events } = await readSse(server.url, aliceThread, { channels: ["lifecycle"] }, terminals(1), { headers: as("alice") });
    expect(events.length).toBeGreaterThan(0);
    const socket = await RawSocket.open(server.url, aliceThread, as("alice"));
    try {
      expect(await socket.command("state.get", {})).toMatchObject({ type: "success" });
    } finally {
      await socket.close();
    }
  });

  it("hides alice's thread from bob: stream/events 404, the WebSocket closed with 4404", async () => {
    const stream = await readSse(server.url, aliceThread, { channels: ["values", "lifecycle"] }, () => true, { headers: as("bob") });
    expect(stream.status).toBe(404);
    expect(stream.events).toEqual([]);
    expect(await socketAnswer(server.url, aliceThread, as("bob"))).toEqual({
      status: 101,
      code: 4404,
      reason: `Thread "${aliceThread}" not found`,
    });
  });

  it("answers bob's commands on alice's thread with errors, and starts nothing", async () => {
    const runsBefore = await server.storage.runs.search({ thread_id: aliceThread, limit: 100 });
    for (const [method, params] of [
      ["state.get", {}],
      ["state.listCheckpoints", {}],
      ["agent.getTree", {}],
      ["run.start", { assistant_id: "echo", input: says("mine now") }],
      ["input.inject", { namespace: [], message: { role: "user", content: "hi" } }],
      ["state.fork", { checkpoint_id: "1f000000-0000-6000-8000-000000000000" }],
      ["subscription.reconnect", { last_event_id: "0" }],
    ] as const) {
      const reply = await command(server.url, aliceThread, method, params, { headers: as("bob") });
      expect([reply.status, reply.body.type], `${method}: ${JSON.stringify(reply.body)}`).toEqual([200, "error"]);
      expect(reply.body.message ?? "", method).not.toContain("secret");
    }
    const runsAfter = await server.storage.runs.search({ thread_id: aliceThread, limit: 100 });
    expect(runsAfter.map((r) => r.run_id)).toEqual(runsBefore.map((r) => r.run_id));
  });

  it("does not tell bob how many events alice's thread holds (subscription.subscribe over HTTP)", async () => {
    const reply = await command(
      server.url,
      aliceThread,
      "subscription.subscribe",
      { channels: ["values", "lifecycle"] },
      { headers: as("bob") },
    );
    expect(reply.status).toBe(200);
    // Refused like every other read of the thread (or at least replaying nothing): never alice's count.
    expect(reply.body.type === "error" || reply.body.result?.replayed_events === 0, JSON.stringify(reply.body)).toBe(true);
  });

  it("sends bob nothing from a thread alice creates after bob's stream and socket opened", async () => {
    const threadId = crypto.randomUUID();
    const bobStream = readSse(server.url, threadId, { channels: ["values", "lifecycle"] }, () => false, {
      headers: as("bob"),
      timeoutMs: 3000,
    });
    const bobSocket = await RawSocket.open(server.url, threadId, as("bob"));
    try {
      expect(await bobSocket.command("subscription.subscribe", { channels: ["values", "lifecycle"] })).toMatchObject({ type: "success" });
      await sleep(100);
      await ok(server.url, threadId, "run.start", { assistant_id: "echo", input: says("private") }, as("alice"));
      const aliceSees = await readSse(server.url, threadId, { channels: ["lifecycle"] }, terminals(1), { headers: as("alice") });
      expect(aliceSees.events.length).toBeGreaterThan(0);
      expect((await bobStream).events).toEqual([]);
      await sleep(300);
      expect(bobSocket.events).toEqual([]);
      // Once the thread exists and is not bob's, his socket is closed as it would have been refused.
      expect(bobSocket.closedWith).toEqual({ code: 4404, reason: `Thread "${threadId}" not found` });
    } finally {
      await bobSocket.close();
    }
  });
});

describe("thread streaming under an auth handler that refuses everything", () => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  beforeAll(async () => ({ server, dispose } = await serverWith(denyAll)));
  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it("answers 403 on commands and on stream/events, closes the WebSocket with 4403; nothing is created", async () => {
    const threadId = crypto.randomUUID();
    for (const [method, params] of [
      ["run.start", { assistant_id: "echo", input: says("x") }],
      ["state.get", {}],
      ["subscription.subscribe", { channels: ["values"] }],
      ["no.such.method", {}],
    ] as const) {
      const reply = await command(server.url, threadId, method, params);
      expect(reply.status, `${method}: ${JSON.stringify(reply.body)}`).toBe(403);
    }
    expect((await readSse(server.url, threadId, { channels: ["values"] }, () => true)).status).toBe(403);
    expect(await socketAnswer(server.url, threadId)).toMatchObject({ status: 101, code: 4403 });
    expect(await server.storage.threads.get(threadId)).toBeFalsy();
  });
});
