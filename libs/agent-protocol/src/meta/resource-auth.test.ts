import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer } from "../../test/support/http.js";

/**
 * Custom auth applied to assistants, store and crons: every route calls `authorize` first, uses the value
 * the handler changed, and scopes reads, updates, deletes, searches and counts with the returned filter.
 * Tokens are the user names.
 */
const auth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob", "carol"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [] };
  })
  .on("assistants:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("assistants", ({ user }) => ({ owner: user.identity }))
  .on("store", ({ value, user }) => {
    if (user.identity === "carol") return false;
    // Every user gets a private namespace: the handler rewrites the namespace the route then uses.
    value.namespace = [user.identity, ...(value.namespace ?? [])];
  })
  .on("crons:create", ({ value, user }) => {
    // The SDK's CronCreate type does not list `metadata`, but this server passes the cron's metadata too.
    const cron = value as typeof value & { metadata?: Record<string, unknown> };
    cron.metadata = { ...cron.metadata, owner: user.identity };
  })
  .on("crons:delete", ({ user }) => (user.identity === "carol" ? false : { owner: user.identity }))
  .on("crons", ({ user }) => ({ owner: user.identity }))
  .on("threads", ({ user }) => ({ owner: user.identity }));

describe.each(httpDrivers)("auth on assistants, store and crons ($name)", (driver) => {
  let server: TestServer;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  beforeAll(async () => {
    server = await openServer(driver, { app: { auth } });
    const as = (user: string) => new Client({ apiUrl: server.url, defaultHeaders: { Authorization: `Bearer ${user}` } });
    [alice, bob, carol] = [as("alice"), as("bob"), as("carol")];
  });
  afterAll(() => server.close());

  it("scopes assistants to their owner: reads, updates, deletes, versions, searches and counts", async () => {
    const mine = await alice.assistants.create({ graphId: "echo", name: "alice's", metadata: { owner: "mallory" } });
    expect(mine.metadata).toEqual({ owner: "alice" });
    await expectHttpError(bob.assistants.get(mine.assistant_id), 404);
    await expectHttpError(bob.assistants.update(mine.assistant_id, { name: "stolen" }), 404);
    await expectHttpError(bob.assistants.delete(mine.assistant_id), 404);
    await expectHttpError(bob.assistants.getVersions(mine.assistant_id), 404);
    await expectHttpError(bob.assistants.setLatest(mine.assistant_id, 1), 404);
    await expectHttpError(bob.assistants.getGraph(mine.assistant_id), 404);
    // Re-creating someone else's id is a conflict, even with do_nothing: it is never handed out.
    await expectHttpError(bob.assistants.create({ graphId: "echo", assistantId: mine.assistant_id, ifExists: "do_nothing" }), 409);

    await bob.assistants.create({ graphId: "echo", name: "bob's" });
    expect((await alice.assistants.search({ limit: 100 })).map((a) => a.name)).toEqual(["alice's"]);
    expect(await bob.assistants.count()).toBe(1);
    // System assistants belong to nobody: outside everyone's scope here.
    await expectHttpError(alice.assistants.get("echo"), 404);

    const renamed = await alice.assistants.update(mine.assistant_id, { name: "renamed" });
    expect(renamed.metadata).toEqual({ owner: "alice" });
    expect((await alice.assistants.getVersions(mine.assistant_id)).map((v) => v.version)).toEqual([2, 1]);
  });

  it("acts on the namespace the store handler rewrote, and honours its denials", async () => {
    await alice.store.putItem(["prefs"], "theme", { color: "dark" });
    expect((await server.storage.store.get(["alice", "prefs"], "theme"))?.value).toEqual({ color: "dark" });
    expect(await server.storage.store.get(["prefs"], "theme")).toBeNull();

    const own = await alice.store.getItem(["prefs"], "theme");
    expect(own).toMatchObject({ namespace: ["alice", "prefs"], value: { color: "dark" } });
    expect(await bob.store.getItem(["prefs"], "theme")).toBeNull();
    expect((await bob.store.searchItems([])).items).toEqual([]);
    expect((await alice.store.searchItems([])).items.map((i) => i.key)).toEqual(["theme"]);
    expect((await alice.store.listNamespaces()).namespaces).toEqual([["alice", "prefs"]]);

    await bob.store.deleteItem(["prefs"], "theme");
    expect(await alice.store.getItem(["prefs"], "theme")).not.toBeNull();
    await expectHttpError(carol.store.putItem(["x"], "k", { v: 1 }), 403);
    await expectHttpError(carol.store.searchItems([]), 403);
  });

  it("scopes crons to their owner, and a thread cron to threads the caller can see", async () => {
    const cron = await alice.crons.create("echo", { schedule: "*/5 * * * *", metadata: { owner: "mallory" } });
    expect(cron.metadata).toEqual({ owner: "alice" });
    expect(cron.user_id).toBe("alice");
    expect(cron.payload).toMatchObject({ metadata: { owner: "alice" } });

    await expectHttpError(bob.crons.update(cron.cron_id, { enabled: false }), 404);
    await expectHttpError(bob.crons.delete(cron.cron_id), 404);
    await expectHttpError(carol.crons.delete(cron.cron_id), 403);
    expect(await bob.crons.search()).toEqual([]);
    expect(await bob.crons.count()).toBe(0);
    expect((await alice.crons.search()).map((c) => c.cron_id)).toEqual([cron.cron_id]);
    // The request's metadata narrows within the caller's scope, never widens it.
    expect(await alice.crons.count({ metadata: { owner: "alice" } })).toBe(1);
    expect(await bob.crons.count({ metadata: { owner: "alice" } })).toBe(0);

    const alicesThread = await server.storage.threads.create({ thread_id: crypto.randomUUID(), metadata: { owner: "alice" } });
    await expectHttpError(bob.crons.createForThread(alicesThread.thread_id, "echo", { schedule: "*/5 * * * *" }), 404, /Thread/);
    const threadCron = await alice.crons.createForThread(alicesThread.thread_id, "echo", { schedule: "*/5 * * * *" });
    expect(threadCron.thread_id).toBe(alicesThread.thread_id);

    await alice.crons.delete(cron.cron_id);
    expect(await server.storage.crons.get(cron.cron_id)).toBeNull();
  });
});
