import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer } from "../../test/support/http.js";

/**
 * Assistants everyone may read and run, managed by their owner; threads (and so their runs) private to
 * theirs. Tokens are the user names.
 */
const auth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [] };
  })
  .on("assistants:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
  })
  .on("assistants:update", ({ user }) => ({ owner: user.identity }))
  .on("assistants:delete", ({ user }) => ({ owner: user.identity }))
  .on("threads:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
  })
  .on("threads", ({ user }) => ({ owner: user.identity }));

type Message = { content: string };
const contents = (values: unknown) => ((values as { messages?: Message[] }).messages ?? []).map((m) => m.content);

describe.each(httpDrivers)("deleting an assistant others ran ($name)", (driver) => {
  let server: TestServer;
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    server = await openServer(driver, { app: { auth } });
    const as = (user: string) => new Client({ apiUrl: server.url, defaultHeaders: { Authorization: `Bearer ${user}` } });
    [alice, bob] = [as("alice"), as("bob")];
  });
  afterAll(() => server.close());

  it("removes the assistant, its versions and crons; another user's thread keeps its runs, result, state and history", async () => {
    const shared = await alice.assistants.create({ graphId: "echo", name: "shared" });
    await alice.assistants.update(shared.assistant_id, { name: "shared v2" });
    const metadata = { assistant_id: shared.assistant_id };
    const bobThread = await bob.threads.create({ metadata });
    const bobRun = await bob.runs.create(bobThread.thread_id, shared.assistant_id, {
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    await bob.runs.join(bobThread.thread_id, bobRun.run_id);
    // A completed A2A task's durable output, as settlement records it for a server-marked run.
    await server.storage.runs.recordResult!(bobRun.run_id, { values: { marker: "bob's task output" } });
    const aliceThread = await alice.threads.create({ metadata });
    await alice.runs.wait(aliceThread.thread_id, shared.assistant_id, { input: { messages: [{ role: "user", content: "mine" }] } });
    const cron = await bob.crons.create(shared.assistant_id, { schedule: "0 0 1 1 *", input: {} });
    const stateBefore = await bob.threads.getState(bobThread.thread_id);
    const historyBefore = await bob.threads.getHistory(bobThread.thread_id, { limit: 100 });
    expect(contents(stateBefore.values)).toEqual(["hi", "echo: hi"]);

    // Only its owner may delete it.
    await expectHttpError(bob.assistants.delete(shared.assistant_id), 404);
    await alice.assistants.delete(shared.assistant_id, { deleteThreads: true });

    await expectHttpError(alice.assistants.get(shared.assistant_id), 404);
    await expectHttpError(alice.assistants.getVersions(shared.assistant_id), 404);
    expect(await server.storage.assistants.listVersions(shared.assistant_id)).toEqual([]);
    expect(await server.storage.crons.get(cron.cron_id)).toBeNull();
    // delete_threads took the threads alice may delete, with their runs; bob's is outside her scope.
    await expectHttpError(alice.threads.get(aliceThread.thread_id), 404);

    const thread = await bob.threads.get(bobThread.thread_id);
    expect(contents(thread.values)).toEqual(["hi", "echo: hi"]);
    expect(await bob.runs.get(bobThread.thread_id, bobRun.run_id)).toMatchObject({
      run_id: bobRun.run_id,
      assistant_id: shared.assistant_id,
      status: "success",
    });
    expect((await bob.runs.list(bobThread.thread_id)).map((r) => r.run_id)).toEqual([bobRun.run_id]);
    expect(await server.storage.runs.getResult!(bobRun.run_id)).toEqual({ values: { marker: "bob's task output" } });
    // The state and history still project from the checkpoints, as GET /threads/{id} shows the values.
    expect(await bob.threads.getState(bobThread.thread_id)).toEqual(stateBefore);
    expect(await bob.threads.getHistory(bobThread.thread_id, { limit: 100 })).toEqual(historyBefore);
    expect(historyBefore.length).toBeGreaterThan(1);

    // New runs with the deleted id are refused; the thread goes on with another assistant of the graph.
    await expectHttpError(bob.runs.wait(bobThread.thread_id, shared.assistant_id, { input: {} }), 404);
    const next = await bob.runs.wait(bobThread.thread_id, "echo", { input: { messages: [{ role: "user", content: "again" }] } });
    expect(contents(next)).toEqual(["hi", "echo: hi", "again", "echo: again"]);
  });

  it("a thread whose runs were all deleted still shows its state and history, and takes updates", async () => {
    const thread = await bob.threads.create();
    const run = await bob.runs.create(thread.thread_id, "echo", { input: { messages: [{ role: "user", content: "kept" }] } });
    await bob.runs.join(thread.thread_id, run.run_id);
    const stateBefore = await bob.threads.getState(thread.thread_id);
    await bob.runs.delete(thread.thread_id, run.run_id);
    expect(await bob.runs.list(thread.thread_id)).toEqual([]);

    expect(await bob.threads.getState(thread.thread_id)).toEqual(stateBefore);
    const history = await bob.threads.getHistory(thread.thread_id);
    expect(history.length).toBeGreaterThan(1);
    expect(history[0]!.checkpoint).toEqual(stateBefore.checkpoint);
    await bob.threads.updateState(thread.thread_id, { values: { messages: [{ role: "user", content: "more" }] }, asNode: "echo" });
    expect(contents((await bob.threads.getState(thread.thread_id)).values)).toEqual(["kept", "echo: kept", "more"]);
  });
});
