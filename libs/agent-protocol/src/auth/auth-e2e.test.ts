import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { Annotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { drivers } from "@agent-server/testing";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { sdkStreamRefusal } from "../../test/support/http.js";

/**
 * Custom auth end to end: the documented "resource owner" setup, two users, the official SDK Client,
 * the real routes. Bearer tokens are the user names; "admin" may manage assistants, nobody else may.
 */
const ownerAuth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob", "admin"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [`role:${token}`] };
  })
  .on("threads:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads", ({ user }) => ({ owner: user.identity }))
  .on("assistants", ({ user }) => user.identity === "admin")
  // Per-user store: every namespace a request names is taken inside the caller's own.
  .on("store", ({ value, user }) => {
    value.namespace = [user.identity, ...(value.namespace ?? [])];
  });

const WhoState = Annotation.Root({
  who: Annotation<string>(),
  userId: Annotation<string>(),
  permissions: Annotation<string[]>(),
});

/** Reports the caller the server put into the run's config. */
const whoamiGraph = new StateGraph(WhoState)
  .addNode("whoami", (_state, config: LangGraphRunnableConfig) => {
    const configurable = (config.configurable ?? {}) as Record<string, unknown>;
    const user = configurable.langgraph_auth_user as { identity?: string } | undefined;
    return {
      who: user?.identity ?? "nobody",
      userId: String(configurable.langgraph_auth_user_id),
      permissions: (configurable.langgraph_auth_permissions as string[]) ?? [],
    };
  })
  .addEdge("__start__", "whoami")
  .compile();

/** The HTTP status a rejected SDK call carried (HTTPError.status), or 200 when it succeeded. */
async function status(call: Promise<unknown> | (() => Promise<unknown>)): Promise<number> {
  try {
    await (typeof call === "function" ? call() : call);
    return 200;
  } catch (error) {
    const code = (error as { status?: unknown }).status;
    if (typeof code === "number") return code;
    throw error;
  }
}

const backends = drivers.filter((d) => d.name === "sqlite" || d.name === "postgres");

describe.each(backends)("custom auth end to end with the SDK Client ($name)", (driver) => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  let alice: Client;
  let bob: Client;
  let admin: Client;
  let aliceThread: string;

  const clientFor = (token?: string) =>
    new Client({ apiUrl: server.url, defaultHeaders: token ? { Authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    server = await startTestServer(opened.storage, { app: { auth: ownerAuth } });
    server.engine.registry.register("whoami", whoamiGraph);
    await server.engine.registry.ensureSystemAssistants(server.storage);
    alice = clientFor("alice");
    bob = clientFor("bob");
    admin = clientFor("admin");
    // Alice tries to plant another owner; the handler's mutation wins.
    const thread = await alice.threads.create({ metadata: { owner: "bob", topic: "secret plans" } });
    aliceThread = thread.thread_id;
  });
  afterAll(async () => {
    await server?.close();
    await dispose?.();
  });

  it("rejects requests without valid credentials with 401, but serves /ok and /info", async () => {
    expect(await status(clientFor().threads.search())).toBe(401);
    expect(await status(clientFor("mallory").threads.get(aliceThread))).toBe(401);
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
    expect((await fetch(`${server.url}/info`)).status).toBe(200);
  });

  it("stamps the creator as owner on threads:create, over the owner the body claimed", async () => {
    const thread = await alice.threads.get(aliceThread);
    expect(thread.metadata).toMatchObject({ owner: "alice", topic: "secret plans" });
  });

  it("hides alice's thread from bob: get, state, history, update and delete answer 404, copy 409", async () => {
    expect(await status(bob.threads.get(aliceThread))).toBe(404);
    expect(await status(bob.threads.getState(aliceThread))).toBe(404);
    expect(await status(bob.threads.getHistory(aliceThread))).toBe(404);
    expect(await status(bob.threads.update(aliceThread, { metadata: { hacked: true } }))).toBe(404);
    // Copy answers 409 for a source the caller cannot see, as for one that does not exist (official server).
    expect(await status(bob.threads.copy(aliceThread))).toBe(409);
    expect(await status(bob.threads.delete(aliceThread))).toBe(404);
    const after = await alice.threads.get(aliceThread);
    expect(after.metadata).not.toHaveProperty("hacked");
  });

  it("does not hand alice's thread to bob through create if_exists=do_nothing", async () => {
    const code = await status(bob.threads.create({ threadId: aliceThread, ifExists: "do_nothing" }));
    expect([404, 409]).toContain(code);
    expect((await alice.threads.get(aliceThread)).metadata).toMatchObject({ owner: "alice" });
  });

  it("scopes search and count by the filter; a metadata query cannot widen it", async () => {
    const bobThread = await bob.threads.create({ metadata: { topic: "bob stuff" } });
    const aliceIds = (await alice.threads.search({ limit: 100 })).map((t) => t.thread_id);
    expect(aliceIds).toContain(aliceThread);
    expect(aliceIds).not.toContain(bobThread.thread_id);
    const bobIds = (await bob.threads.search({ limit: 100 })).map((t) => t.thread_id);
    expect(bobIds).toEqual([bobThread.thread_id]);
    expect(await bob.threads.search({ metadata: { owner: "alice" }, limit: 100 })).toEqual([]);
    expect(await bob.threads.count()).toBe(1);
    expect(await bob.threads.count({ metadata: { owner: "alice" } })).toBe(0);
  });

  it("gives graphs the authenticated user as langgraph_auth_user, never the one a request's config claims", async () => {
    const forged = {
      configurable: { langgraph_auth_user: { identity: "bob" }, langgraph_auth_user_id: "bob", langgraph_auth_permissions: ["root"] },
    };
    const values = (await alice.runs.wait(aliceThread, "whoami", { input: {}, config: forged })) as Record<string, unknown>;
    expect(values).toMatchObject({ who: "alice", userId: "alice", permissions: ["role:alice"] });
    const stateless = (await bob.runs.wait(null, "whoami", { input: {}, config: forged })) as Record<string, unknown>;
    expect(stateless).toMatchObject({ who: "bob", userId: "bob", permissions: ["role:bob"] });
  });

  it("keeps alice's runs from bob: create, list, get, join, stream, cancel and delete answer 404", async () => {
    expect(await status(bob.runs.create(aliceThread, "echo", { input: { messages: [] } }))).toBe(404);
    expect(await status(bob.runs.wait(aliceThread, "echo", { input: { messages: [] } }))).toBe(404);
    expect(await status(bob.runs.create(aliceThread, "echo", { input: { messages: [] }, ifNotExists: "create" }))).toBe(404);
    const run = await alice.runs.create(aliceThread, "slow", { input: { delayMs: 400 } });
    expect(await status(bob.runs.list(aliceThread))).toBe(404);
    expect(await status(bob.runs.get(aliceThread, run.run_id))).toBe(404);
    expect(await status(bob.runs.join(aliceThread, run.run_id))).toBe(404);
    expect(await sdkStreamRefusal(bob.runs.joinStream(aliceThread, run.run_id))).toBe(404);
    expect(await status(bob.runs.cancel(aliceThread, run.run_id))).toBe(404);
    await alice.runs.join(aliceThread, run.run_id);
    expect((await alice.runs.get(aliceThread, run.run_id)).status).toBe("success");
    expect(await status(bob.runs.delete(aliceThread, run.run_id))).toBe(404);
    expect((await alice.runs.list(aliceThread)).map((r) => r.run_id)).toContain(run.run_id);
  });

  it("lets bob delete his own thread but still not alice's", async () => {
    const mine = await bob.threads.create();
    expect(await status(bob.threads.delete(mine.thread_id))).toBe(200);
    expect(await status(bob.threads.get(mine.thread_id))).toBe(404);
    expect(await status(alice.threads.get(aliceThread))).toBe(200);
  });

  it("denies assistants to non-admins with 403 and allows the admin", async () => {
    expect(await status(alice.assistants.search())).toBe(403);
    expect(await status(alice.assistants.get("echo"))).toBe(403);
    expect(await status(bob.assistants.create({ graphId: "echo" }))).toBe(403);
    expect(await status(bob.assistants.delete("echo"))).toBe(403);
    const listed = await admin.assistants.search({ limit: 100 });
    expect(listed.map((a) => a.graph_id)).toContain("echo");
  });

  it("keeps each user's store items in their own namespace, whatever namespace the request names", async () => {
    await alice.store.putItem(["notes"], "plan", { text: "take over" });
    const item = await alice.store.getItem(["notes"], "plan");
    expect(item).toMatchObject({ namespace: ["alice", "notes"], key: "plan", value: { text: "take over" } });
    expect(await bob.store.getItem(["notes"], "plan")).toBeNull();
    expect(await bob.store.getItem(["alice", "notes"], "plan")).toBeNull();
    await bob.store.putItem(["alice", "notes"], "plan", { text: "mine now" });
    await bob.store.deleteItem(["notes"], "plan");
    expect((await bob.store.searchItems(["alice"])).items.map((i) => i.namespace)).toEqual([["bob", "alice", "notes"]]);
    expect((await alice.store.getItem(["notes"], "plan"))?.value).toEqual({ text: "take over" });
    expect((await alice.store.searchItems([])).items.map((i) => i.key)).toEqual(["plan"]);
    expect((await alice.store.listNamespaces()).namespaces).toEqual([["alice", "notes"]]);
  });
});
