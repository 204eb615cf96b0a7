import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import type { Storage } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";
import { startEngine } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import { createApp } from "../app.js";
import type { RunningServer } from "../server.js";
import { requestAuthenticator } from "./middleware.js";
import { probe, startProbeServer } from "../../test/support/probe-server.js";

const sqlite = drivers.find((d) => d.name === "sqlite")!;

/** Bearer tokens are user names; "boom" makes the handler crash, "null" makes it return nothing. */
function bearerAuth() {
  return new Auth().authenticate(async (request: Request) => {
    const header = request.headers.get("authorization");
    if (!header) {
      throw new HTTPException(401, { message: "Missing token", headers: { "WWW-Authenticate": 'Bearer realm="test"' } });
    }
    const token = header.replace(/^Bearer /, "");
    if (token === "boom") throw new Error("database down");
    if (token === "null") return null as unknown as string;
    if (token === "banned") throw new HTTPException(403, { message: "You are banned" });
    if (token === "plain") return "plain-user";
    // No permissions at all (a plain-JS handler): normalized to [].
    if (token === "guest") return { identity: "guest", is_authenticated: false, display_name: "Guest" } as unknown as string;
    return { identity: token, permissions: ["threads:write"], role: "member" };
  });
}

describe("authentication (custom Auth through the real HTTP server, SQLite)", () => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  let server: RunningServer;

  beforeAll(async () => {
    const opened = await sqlite.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage);
    server = await startProbeServer(engine, storage, bearerAuth());
  });
  afterAll(async () => {
    await server?.close();
    await engine?.stop(0);
    await dispose?.();
  });

  it("answers 401 { detail } with the handler's message and headers when authenticate throws HTTPException(401)", async () => {
    const response = await fetch(`${server.url}/threads/search`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ detail: "Missing token" });
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="test"');
  });

  it("keeps the status of another HTTPException thrown by authenticate", async () => {
    const answer = await probe(server, "threads:read", {}, { authorization: "Bearer banned" });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ detail: "You are banned" });
  });

  it("answers 401 when authenticate crashes or returns no identity, never 500 and never through", async () => {
    for (const token of ["boom", "null"]) {
      const answer = await probe(server, "threads:read", {}, { authorization: `Bearer ${token}` });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ detail: "Unauthorized" });
    }
  });

  it("normalizes a string identity as the official server does", async () => {
    const answer = await probe(server, "threads:read", {}, { authorization: "Bearer plain" });
    expect(answer.status).toBe(200);
    expect(answer.body.user).toEqual({ identity: "plain-user", display_name: "plain-user", permissions: [], is_authenticated: true });
  });

  it("normalizes an object: extra fields kept, display_name and is_authenticated defaulted, permissions kept", async () => {
    const alice = await probe(server, "threads:read");
    expect(alice.body.user).toEqual({
      identity: "alice",
      display_name: "alice",
      permissions: ["threads:write"],
      is_authenticated: true,
      role: "member",
    });
    const guest = await probe(server, "threads:read", {}, { authorization: "Bearer guest" });
    expect(guest.body.user).toEqual({ identity: "guest", display_name: "Guest", permissions: [], is_authenticated: false });
  });

  it("exempts /ok, /info and /openapi.json (GET) and nothing else", async () => {
    for (const path of ["/ok", "/info", "/openapi.json"]) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
    // /docs is exempt too: without a docs route it is a plain 404, not a 401.
    expect((await fetch(`${server.url}/docs`)).status).not.toBe(401);
    for (const [method, path] of [
      ["POST", "/ok"],
      ["GET", "/assistants/x"],
      ["GET", "/threads/x"],
      ["POST", "/store/items/search"],
      ["GET", "/nope"],
      ["GET", "/ok/"],
      ["GET", "/info/../threads/x"],
    ]) {
      expect((await fetch(`${server.url}${path}`, { method })).status, `${method} ${path}`).toBe(401);
    }
  });

  it("takes the user only from authenticate(): Studio headers and a body's langgraph_auth_user change nothing", async () => {
    const studio = await fetch(`${server.url}/threads/search`, {
      method: "POST",
      headers: { "x-auth-scheme": "langsmith", "content-type": "application/json" },
      body: "{}",
    });
    expect(studio.status).toBe(401);
    const forged = await probe(server, "threads:create_run", {
      config: { configurable: { langgraph_auth_user: { identity: "bob" }, langgraph_auth_user_id: "bob" } },
      user: { identity: "bob" },
    });
    expect(forged.status).toBe(200);
    expect(forged.body.user).toMatchObject({ identity: "alice" });
  });

  it("leaves the body readable for the route when authenticate reads it", async () => {
    const bodyReader = new Auth().authenticate(async (request: Request) => {
      const body = request.method === "POST" ? ((await request.json()) as { who?: string }) : {};
      return body.who ?? "anonymous";
    });
    const other = await startProbeServer(engine, storage, bodyReader);
    try {
      const answer = await probe(other, "threads:create", { who: "carol", metadata: { x: 1 } }, {});
      expect(answer.status).toBe(200);
      expect(answer.body.user).toMatchObject({ identity: "carol" });
      expect(answer.body.value).toEqual({ who: "carol", metadata: { x: 1 } });
    } finally {
      await other.close();
    }
  });

  it("runs open without custom auth, and with an Auth that registers nothing", async () => {
    for (const auth of [undefined, new Auth()]) {
      const open = await startProbeServer(engine, storage, auth);
      try {
        const answer = await probe(open, "threads:delete", { thread_id: "t" }, {});
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ filter: null, value: { thread_id: "t" }, user: null });
      } finally {
        await open.close();
      }
    }
  });

  it("refuses to build an app over a broken Auth instead of running open", () => {
    const build = (auth: unknown) => () => createApp({ engine, storage, version: "test", auth });
    expect(build({ authenticate: () => "x" })).toThrow(/not an instance of Auth/);
    expect(build(new Auth().on("threads", () => false))).toThrow(/need an authenticate handler/);
    const typo = new Auth().authenticate(() => "x");
    typo.on("thread:create" as "threads:create", () => false);
    expect(build(typo)).toThrow(/unknown authorization event "thread:create"/);
  });
});

describe("requestAuthenticator (the middleware's Request -> RequestAuth, for servers outside the app)", () => {
  const request = (token?: string) =>
    new Request("http://grpc.local/lf.a2a.v1.A2AService/GetTask", token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it("authenticates as the middleware does: the normalized user, its authorization, the handler's own failure", async () => {
    const authenticate = requestAuthenticator(
      bearerAuth().on("threads:read", ({ user }) => {
        if (user.identity === "mallory") throw new HTTPException(403, { message: "not you" });
        return { owner: user.identity };
      }),
    );
    const alice = await authenticate(request("alice"));
    expect(alice.user).toMatchObject({ identity: "alice", permissions: ["threads:write"], is_authenticated: true, display_name: "alice" });
    expect(await alice.authorize("threads", "read", { thread_id: "t" })).toEqual({ owner: "alice" });
    await expect((await authenticate(request("mallory"))).authorize("threads", "read", { thread_id: "t" })).rejects.toMatchObject({
      status: 403,
      message: "not you",
    });
    await expect(authenticate(request())).rejects.toMatchObject({ status: 401, message: "Missing token" });
    await expect(authenticate(request("banned"))).rejects.toMatchObject({ status: 403, message: "You are banned" });
    await expect(authenticate(request("boom"))).rejects.toMatchObject({ status: 401, message: "Unauthorized" });
  });

  it("gives open access without custom auth, and refuses a broken Auth when built", async () => {
    for (const auth of [undefined, new Auth()]) {
      const open = await requestAuthenticator(auth)(request());
      expect(open.user).toBeUndefined();
      expect(await open.authorize("threads", "delete", { thread_id: "t" })).toBeUndefined();
    }
    expect(() => requestAuthenticator({ authenticate: () => "x" })).toThrow(/not an instance of Auth/);
  });
});
