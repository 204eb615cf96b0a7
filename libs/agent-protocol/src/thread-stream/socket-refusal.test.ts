import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { runDrivers } from "../../test/support/runs.js";
import { ok, readSse, says, socketAnswer, terminals } from "../../test/support/thread-stream.js";

/**
 * How the thread streaming protocol's WebSocket refuses a client, as the SDK's WebSocket transport reads
 * it: the upgrade is accepted and the socket closed with 4000 + the HTTP status the SSE endpoint answers
 * (4403 forbidden, 4404 not found, 4422 invalid), which ends the SDK's stream with that `status` instead
 * of a reconnect loop. Tokens are user names; "mallory" may read no thread at all.
 */

const auth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token) throw new HTTPException(401, { message: "No token" });
    return { identity: token, permissions: [] };
  })
  .on("threads:create_run", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads:read", ({ user }) => (user.identity === "mallory" ? false : { owner: user.identity }))
  .on("threads", ({ user }) => ({ owner: user.identity }));

const as = (user: string) => ({ authorization: `Bearer ${user}` });

/** The stream-level error the official SDK's WebSocket ThreadStream ends with, as `user`, on `threadId`. */
async function sdkFailure(url: string, threadId: string, user: string): Promise<unknown> {
  const client = new Client({ apiUrl: url });
  let reconnects = 0;
  const thread = client.threads.stream(threadId, {
    assistantId: "echo",
    transport: "websocket",
    webSocketFactory: (socketUrl: string) => new WebSocket(socketUrl, { headers: as(user) }) as unknown as globalThis.WebSocket,
    onReconnect: () => (reconnects += 1),
  } as Parameters<Client["threads"]["stream"]>[1]);
  try {
    const failure = new Promise<unknown>((resolve) => thread.onError(resolve));
    await thread.subscribe(["values"]).catch(() => undefined);
    const error = await failure;
    expect(reconnects).toBe(0);
    return error;
  } finally {
    await thread.close();
  }
}

describe.each(runDrivers)("WebSocket refusals of the thread streaming protocol ($name)", (driver) => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  let aliceThread: string;

  beforeAll(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    server = await startTestServer(opened.storage, { app: { auth } });
    aliceThread = crypto.randomUUID();
    await ok(server.url, aliceThread, "run.start", { assistant_id: "echo", input: says("secret") }, as("alice"));
    await readSse(server.url, aliceThread, { channels: ["lifecycle"] }, terminals(1), { headers: as("alice") });
  });
  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it("closes with 4404 for a thread the caller may not see, 4403 when reading is forbidden, 4422 for a bad id", async () => {
    expect(await socketAnswer(server.url, aliceThread, as("alice"))).toEqual({ status: 101, open: true });
    expect(await socketAnswer(server.url, aliceThread, as("bob"))).toEqual({
      status: 101,
      code: 4404,
      reason: `Thread "${aliceThread}" not found`,
    });
    expect(await socketAnswer(server.url, aliceThread, as("mallory"))).toMatchObject({ status: 101, code: 4403 });
    expect(await socketAnswer(server.url, "not-a-uuid", as("alice"))).toMatchObject({ status: 101, code: 4422 });
  });

  it("ends the official SDK's WebSocket stream with the refusal's status, without reconnecting", async () => {
    expect(await sdkFailure(server.url, aliceThread, "bob")).toMatchObject({ status: 404 });
    expect(await sdkFailure(server.url, aliceThread, "mallory")).toMatchObject({ status: 403 });
  });
});
