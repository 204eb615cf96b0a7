import assert from "node:assert";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import type { Storage } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";
import { startEngine } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import type { RunningServer } from "../server.js";
import { probe, startProbeServer } from "../../test/support/probe-server.js";

const sqlite = drivers.find((d) => d.name === "sqlite")!;

const authenticate = (request: Request) => {
  const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
  if (!token) throw new HTTPException(401, { message: "Missing token" });
  return { identity: token, permissions: [`${token}:perm`] };
};

describe("authorization (custom Auth handlers through the real HTTP server, SQLite)", () => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  const servers: RunningServer[] = [];
  const serve = async (auth: Auth) => {
    const server = await startProbeServer(engine, storage, auth);
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    const opened = await sqlite.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage);
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await engine?.stop(0);
    await dispose?.();
  });

  it("looks handlers up as resource:action, then resource, then *:action, then *", async () => {
    const tagged = (via: string) => () => ({ via });
    const server = await serve(
      new Auth()
        .authenticate(authenticate)
        .on("*", tagged("*"))
        .on("*:create", tagged("*:create"))
        .on("threads", tagged("threads"))
        .on("threads:create", tagged("threads:create")),
    );
    const via = async (event: Parameters<typeof probe>[1]) => (await probe(server, event)).body.filter?.via;
    expect(await via("threads:create")).toBe("threads:create");
    expect(await via("threads:read")).toBe("threads");
    expect(await via("threads:create_run")).toBe("threads");
    expect(await via("assistants:create")).toBe("*:create");
    expect(await via("crons:create")).toBe("*:create");
    expect(await via("assistants:read")).toBe("*");
    expect(await via("store:put")).toBe("*");
  });

  it("allows an event no handler covers, unfiltered (as the official server)", async () => {
    const server = await serve(new Auth().authenticate(authenticate).on("threads", () => false));
    expect((await probe(server, "threads:read")).status).toBe(403);
    const store = await probe(server, "store:put", { namespace: ["a"], key: "k", value: {} });
    expect(store.status).toBe(200);
    expect(store.body.filter).toBeNull();
  });

  it("passes { event, resource, action, value, user, permissions } to the handler", async () => {
    let seen: Record<string, unknown> | undefined;
    const server = await serve(
      new Auth().authenticate(authenticate).on("*", (request) => {
        seen = JSON.parse(JSON.stringify(request)) as Record<string, unknown>;
      }),
    );
    await probe(server, "threads:update", { thread_id: "t1", metadata: { a: 1 } }, { authorization: "Bearer bob" });
    expect(seen).toEqual({
      event: "threads:update",
      resource: "threads",
      action: "update",
      value: { thread_id: "t1", metadata: { a: 1 } },
      user: { identity: "bob", display_name: "bob", permissions: ["bob:perm"], is_authenticated: true },
      permissions: ["bob:perm"],
    });
  });

  it("treats undefined, null and true as allowed without a filter, and false as 403", async () => {
    const answers: Record<string, unknown> = { assistants: undefined, threads: null, crons: true, store: false };
    const auth = new Auth().authenticate(authenticate);
    for (const [resource, answer] of Object.entries(answers)) auth.on(resource as "threads", () => answer as boolean);
    const server = await serve(auth);
    for (const event of ["assistants:read", "threads:read", "crons:read"] as const) {
      const answer = await probe(server, event);
      expect(answer.status, event).toBe(200);
      expect(answer.body.filter, event).toBeNull();
    }
    const denied = await probe(server, "store:get", { namespace: ["a"], key: "k" });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ detail: "Forbidden" });
  });

  it("returns a filter in each supported form, and no filter for an empty object", async () => {
    const filters: Record<string, unknown> = {
      "threads:read": { owner: "alice" },
      "threads:search": { owner: { $eq: "alice" }, org: "acme" },
      "assistants:search": { tags: { $contains: "shared" } },
      "assistants:read": { tags: { $contains: ["a", "b"] }, level: 3 },
      "crons:read": {},
    };
    const auth = new Auth().authenticate(authenticate);
    for (const [event, filter] of Object.entries(filters)) auth.on(event as "threads:read", () => filter as Record<string, string>);
    const server = await serve(auth);
    for (const [event, filter] of Object.entries(filters)) {
      const answer = await probe(server, event as "threads:read");
      expect(answer.status, event).toBe(200);
      expect(answer.body.filter, event).toEqual(Object.keys(filter as object).length ? filter : null);
    }
  });

  it("rejects filters it cannot apply exactly with a 500 naming the event, never silently widening access", async () => {
    const invalid: Record<string, unknown> = {
      "threads:read": { owner: { $ne: "alice" } },
      "threads:search": { owner: undefined },
      "threads:update": { owner: { nested: "object" } },
      "threads:delete": { owner: { $eq: "alice", $in: ["x"] } },
      "assistants:read": { tags: { $contains: [] } },
      "assistants:search": 42,
      "crons:read": ["owner"],
    };
    const auth = new Auth().authenticate(authenticate);
    for (const [event, result] of Object.entries(invalid)) auth.on(event as "threads:read", () => result as Record<string, string>);
    const server = await serve(auth);
    for (const event of Object.keys(invalid)) {
      const answer = await probe(server, event as "threads:read");
      expect(answer.status, event).toBe(500);
      expect(answer.body.detail, event).toContain(`"${event}" returned an invalid result`);
    }
  });

  it("lets a handler change the value in place; the route sees the change", async () => {
    const server = await serve(
      new Auth().authenticate(authenticate).on("threads:create", ({ value, user }) => {
        value.metadata ??= {};
        value.metadata.owner = user.identity;
        return { owner: user.identity };
      }),
    );
    const answer = await probe(server, "threads:create", { metadata: { owner: "mallory", topic: "x" } });
    expect(answer.status).toBe(200);
    expect(answer.body.value).toEqual({ metadata: { owner: "alice", topic: "x" } });
    expect(answer.body.filter).toEqual({ owner: "alice" });
  });

  it("keeps the status, message and headers of an HTTPException a handler throws; an assertion is a 403", async () => {
    const server = await serve(
      new Auth()
        .authenticate(authenticate)
        .on("threads:delete", () => {
          throw new HTTPException(404, { message: "No such thread for you" });
        })
        .on("threads:update", () => {
          throw new HTTPException(429, { message: "Slow down", headers: { "Retry-After": "7" } });
        })
        .on("store", ({ value, user }) => {
          assert.equal(value.namespace?.[0], user.identity, "not your namespace");
        }),
    );
    const gone = await probe(server, "threads:delete");
    expect([gone.status, gone.body]).toEqual([404, { detail: "No such thread for you" }]);
    const slow = await probe(server, "threads:update");
    expect([slow.status, slow.body, slow.headers.get("retry-after")]).toEqual([429, { detail: "Slow down" }, "7"]);
    const theirs = await probe(server, "store:put", { namespace: ["bob"], key: "k", value: {} });
    expect([theirs.status, theirs.body]).toEqual([403, { detail: "not your namespace" }]);
    expect((await probe(server, "store:put", { namespace: ["alice"], key: "k", value: {} })).status).toBe(200);
  });

  it("does not let a handler's thrown plain error pass as allowed (500, logged)", async () => {
    const server = await serve(
      new Auth().authenticate(authenticate).on("threads:read", () => {
        throw new Error("bug in the handler");
      }),
    );
    const answer = await probe(server, "threads:read");
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ detail: "Internal server error" });
  });

  it("checks each request against its own user: one user's filter never leaks into another's", async () => {
    const server = await serve(new Auth().authenticate(authenticate).on("threads:search", ({ user }) => ({ owner: user.identity })));
    const [alice, bob] = await Promise.all([
      probe(server, "threads:search", {}, { authorization: "Bearer alice" }),
      probe(server, "threads:search", { metadata: { owner: "alice" } }, { authorization: "Bearer bob" }),
    ]);
    expect(alice.body.filter).toEqual({ owner: "alice" });
    expect(bob.body.filter).toEqual({ owner: "bob" });
  });
});
