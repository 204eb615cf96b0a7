import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTPException } from "hono/http-exception";
import { Client } from "@langchain/langgraph-sdk";
import { Auth } from "@langchain/langgraph-sdk/auth";
import { systemAssistantId } from "@agent-server/engine";
import type { TestServer } from "../../test/support/index.js";
import { httpDrivers, openServer, rawJson } from "../../test/support/http.js";

describe.each(httpDrivers)("POST /internal/truncate on $name", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(driver);
  });
  afterAll(() => server.close());

  it("truncates only what the flags name, keeping system assistants", async () => {
    const { client, storage, url, engine } = server;
    const custom = await client.assistants.create({ graphId: "echo" });
    const thread = await storage.threads.create({ thread_id: crypto.randomUUID() });
    await client.store.putItem(["t"], "k", { v: 1 });

    const storeOnly = await rawJson(`${url}/internal/truncate`, "POST", { store: true });
    expect(storeOnly).toMatchObject({ status: 200, json: { ok: true } });
    expect(await client.store.getItem(["t"], "k")).toBeNull();
    expect(await storage.threads.get(thread.thread_id)).not.toBeNull();
    expect((await client.assistants.get(custom.assistant_id)).assistant_id).toBe(custom.assistant_id);

    const rest = await rawJson(`${url}/internal/truncate`, "POST", { runs: true, threads: true, assistants: true, checkpointer: true });
    expect(rest.status).toBe(200);
    expect(await storage.threads.get(thread.thread_id)).toBeNull();
    expect(await storage.assistants.get(custom.assistant_id)).toBeNull();
    const left = await client.assistants.search({ limit: 100 });
    expect(left.map((a) => a.assistant_id).sort()).toEqual(
      engine.registry
        .ids()
        .map((g) => systemAssistantId(g))
        .sort(),
    );
  });

  it("re-creates system assistants even when storage removed them", async () => {
    const { storage, url } = server;
    await storage.assistants.delete(systemAssistantId("echo"));
    const response = await rawJson(`${url}/internal/truncate`, "POST", {});
    expect(response.status).toBe(200);
    expect(await storage.assistants.get(systemAssistantId("echo"))).not.toBeNull();
  });

  it("rejects non-boolean flags with 422 naming the flag", async () => {
    const bad = await rawJson(`${server.url}/internal/truncate`, "POST", { runs: "yes" });
    expect(bad.status).toBe(422);
    expect((bad.json as { detail: string }).detail).toMatch(/^runs/);
  });
});

describe("POST /internal/truncate outside dev mode", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(httpDrivers[0]!, { app: { dev: false } });
  });
  afterAll(() => server.close());

  it("is not mounted", async () => {
    const response = await rawJson(`${server.url}/internal/truncate`, "POST", { store: true });
    expect(response.status).toBe(404);
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain("/internal/truncate");
  });
});

describe("POST /internal/truncate with custom auth (SQLite)", () => {
  let server: TestServer;
  // Owner-scoped resources, as a real multi-user project has them; every event is allowed for its owner.
  const auth = new Auth()
    .authenticate((request: Request) => {
      const user = request.headers.get("x-user");
      if (!user) throw new HTTPException(401, { message: "no x-user header" });
      return user;
    })
    .on("*", ({ value, user }) => {
      const metadata = (value as { metadata?: Record<string, unknown> }).metadata;
      if (metadata) metadata.owner = user.identity;
      return { owner: user.identity };
    });
  beforeAll(async () => {
    server = await openServer(
      httpDrivers.find((d) => d.name === "sqlite")!,
      { app: { auth } },
    );
  });
  afterAll(() => server.close());

  const truncate = (headers: Record<string, string>) =>
    fetch(`${server.url}/internal/truncate`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ runs: true, threads: true, assistants: true, store: true, checkpointer: true }),
    });

  it("answers 401 without credentials and 403 to a signed-in user, deleting nothing", async () => {
    const alice = new Client({ apiUrl: server.url, defaultHeaders: { "x-user": "alice" } });
    const thread = await alice.threads.create();

    const anonymous = await truncate({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ detail: expect.any(String) });
    const bob = await truncate({ "x-user": "bob" });
    expect(bob.status).toBe(403);
    expect(await bob.json()).toEqual({ detail: expect.stringMatching(/custom auth/) });

    expect((await alice.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
  });
});
