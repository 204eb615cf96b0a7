import { Hono } from "hono";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";

const json = (body: unknown) => ({ method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });

describe("custom http.app routes", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("a Hono app's routes win over core routes of the same path; the rest reaches the API", async () => {
    const user = new Hono().get("/info", (c) => c.json({ custom: true })).get("/hello", (c) => c.text("hi"));
    server = await startTestServer(createMemoryStorage(), { app: { httpApp: user } });
    expect(await (await fetch(`${server.url}/info`)).json()).toEqual({ custom: true });
    expect(await (await fetch(`${server.url}/hello`)).text()).toBe("hi");
    const thread = (await (await fetch(`${server.url}/threads`, json({ metadata: { a: 1 } }))).json()) as { metadata: unknown };
    expect(thread.metadata).toEqual({ a: 1 });
  });

  it("a fetch handler is asked first; its 404 falls through with the body still readable", async () => {
    const seen: unknown[] = [];
    const user = async (request: Request) => {
      seen.push(await request.json().catch(() => null));
      return new URL(request.url).pathname === "/mine" ? new Response("mine") : new Response("no", { status: 404 });
    };
    server = await startTestServer(createMemoryStorage(), { app: { httpApp: user } });
    expect(await (await fetch(`${server.url}/mine`, json({ b: 2 }))).text()).toBe("mine");
    const thread = (await (await fetch(`${server.url}/threads`, json({ metadata: { c: 3 } }))).json()) as { metadata: unknown };
    expect(thread.metadata).toEqual({ c: 3 });
    expect(seen).toEqual([{ b: 2 }, { metadata: { c: 3 } }]);
  });

  it("custom routes are behind custom auth, as the official server puts them", async () => {
    const auth = new Auth().authenticate(async (request: Request) => {
      if (request.headers.get("authorization") !== "Bearer ok") throw new HTTPException(401, { message: "who are you" });
      return "ok-user";
    });
    const user = new Hono().get("/hello", (c) => c.text("hi"));
    server = await startTestServer(createMemoryStorage(), { app: { httpApp: user, auth } });
    expect((await fetch(`${server.url}/hello`)).status).toBe(401);
    expect(await (await fetch(`${server.url}/hello`, { headers: { authorization: "Bearer ok" } })).text()).toBe("hi");
  });
});
