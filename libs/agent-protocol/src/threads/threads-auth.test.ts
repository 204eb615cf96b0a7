import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { say, statusOf, threadDrivers } from "../../test/support/threads.js";

/**
 * The documented "resource owner" auth (`@langchain/langgraph-sdk/auth`), served by the real app:
 * creates stamp `metadata.owner`, every other thread action is filtered to the caller's own threads, and
 * "mallory" may not delete. Bearer tokens are the user names.
 */
const ownerAuth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token) throw new HTTPException(401, { message: "no token" });
    return { identity: token, permissions: [] };
  })
  .on("threads:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads:delete", ({ user }) => {
    if (user.identity === "mallory") throw new HTTPException(403, { message: "Forbidden" });
    return { owner: user.identity };
  })
  .on("threads", ({ user }) => ({ owner: user.identity }));

describe.each(threadDrivers)("/threads authorization on $name", (driver) => {
  let server: TestServer;
  let dispose: () => Promise<void>;
  const as = (user: string) => new Client({ apiUrl: server.url, defaultHeaders: { Authorization: `Bearer ${user}` } });

  beforeAll(async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    server = await startTestServer(opened.storage, { app: { auth: ownerAuth } });
  });
  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it("answers a taken thread id with the same 409 and detail whoever owns it and whatever if_exists says", async () => {
    const ann = as("ann");
    const bob = as("bob");
    const annThread = await ann.threads.create({ metadata: { topic: "private" } });
    const bobThread = await bob.threads.create();
    const attempt = async (user: string, threadId: string, extra: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/threads`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${user}` },
        body: JSON.stringify({ thread_id: threadId, metadata: { owner: user }, ...extra }),
      });
      return { status: response.status, body: (await response.text()).replaceAll(threadId, "<id>") };
    };
    // What anyone gets for a taken id with `raise`, the owner included.
    const taken = await attempt("bob", bobThread.thread_id, { if_exists: "raise" });
    expect(taken.status).toBe(409);
    expect(JSON.parse(taken.body)).toEqual({ detail: expect.any(String) });
    for (const extra of [
      { if_exists: "do_nothing" },
      { if_exists: "raise" },
      {},
      { if_exists: "do_nothing", supersteps: [{ updates: [{ values: { messages: [] }, as_node: "echo" }] }] },
    ]) {
      expect(await attempt("bob", annThread.thread_id, extra), JSON.stringify(extra)).toEqual(taken);
    }
    expect(await attempt("ann", annThread.thread_id, { if_exists: "raise" })).toEqual(taken);
    // The owner's do_nothing still hands back the thread, untouched by bob's attempts.
    const again = await ann.threads.create({ threadId: annThread.thread_id, ifExists: "do_nothing" });
    expect(again.metadata).toEqual({ topic: "private", owner: "ann" });
    expect((await ann.threads.getHistory(annThread.thread_id)).length).toBe(0);
  });

  it("stamps the owner on create and on copy, and hides other owners' threads as 404", async () => {
    const ann = as("ann");
    const bob = as("bob");
    const thread = await ann.threads.create({ metadata: { topic: "x" } });
    expect(thread.metadata).toEqual({ topic: "x", owner: "ann" });
    const { end } = await server.engine.createRunAndWait({ assistant_id: "echo", input: say("secret") }, { threadId: thread.thread_id });
    expect(end.status).toBe("success");

    const id = thread.thread_id;
    const attempts: Array<() => Promise<unknown>> = [
      () => bob.threads.get(id),
      () => bob.threads.update(id, { metadata: { owner: "bob" } }),
      () => bob.threads.delete(id),
      () => bob.threads.getState(id),
      () => bob.threads.getHistory(id),
      () => bob.threads.updateState(id, { values: { messages: [] }, asNode: "echo" }),
    ];
    for (const attempt of attempts) expect(await statusOf(attempt())).toBe(404);
    // Copy answers 409 for a source the caller cannot see, as for one that does not exist (official server).
    expect(await statusOf(bob.threads.copy(id))).toBe(409);
    expect(await statusOf(bob.threads.create({ threadId: id, ifExists: "do_nothing" }))).toBe(409);
    expect(await bob.threads.search({ ids: [id] })).toEqual([]);
    expect(await bob.threads.count({ metadata: { topic: "x" } })).toBe(0);
    expect(await bob.threads.prune([id])).toEqual({ pruned_count: 0 });
    expect(await bob.threads.prune([id], { strategy: "keep_latest" })).toEqual({ pruned_count: 0 });
    expect((await ann.threads.getHistory(id, { limit: 100 })).length).toBeGreaterThan(1);

    expect((await ann.threads.search({ ids: [id] })).map((t) => t.thread_id)).toEqual([id]);
    expect(await ann.threads.count({ metadata: { topic: "x" } })).toBe(1);
    const copy = await as("ann").threads.copy(id);
    expect(copy.metadata).toEqual({ topic: "x", owner: "ann" });
    expect(await ann.threads.prune([copy.thread_id])).toEqual({ pruned_count: 1 });
  });

  it("honours a handler's 403", async () => {
    const mallory = as("mallory");
    const { thread_id } = await mallory.threads.create();
    expect(await statusOf(mallory.threads.delete(thread_id))).toBe(403);
    expect(await statusOf(mallory.threads.prune([thread_id]))).toBe(403);
    expect((await mallory.threads.get(thread_id)).thread_id).toBe(thread_id);
  });
});
