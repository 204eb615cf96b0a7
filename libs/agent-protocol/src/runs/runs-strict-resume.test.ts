import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { newThread } from "@agent-server/engine/testing";
import type { TestServer } from "../../test/support/index.js";
import { openRunsServer, raw, runDrivers } from "../../test/support/runs.js";

/**
 * `strictResume` (wire `strict_resume`) on runs create/stream/wait, thread and stateless: a resume naming
 * an interrupt that is not pending fails the run with LangGraph's UnknownInterruptError and leaves the
 * thread as it was (no checkpoint written, still interrupted); a correct strict resume then goes through.
 */
describe.each(runDrivers)("strict resume over HTTP ($name)", (driver) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await openRunsServer(driver);
    client = server.client;
  });
  afterAll(() => server.close());

  /** The ids of the interrupts pending on the thread, as GET /state reports them. */
  const pendingIds = async (thread: string) =>
    (await client.threads.getState(thread)).tasks.flatMap((task) => task.interrupts.map((i) => i.id as string));

  /** What a refusal must not change: the latest checkpoint, how many there are, the thread's status and interrupts. */
  const threadAsItIs = async (thread: string) => {
    const state = await client.threads.getState(thread);
    const history = await client.threads.getHistory(thread, { limit: 100 });
    const row = await client.threads.get(thread);
    return { checkpoint: state.checkpoint.checkpoint_id, checkpoints: history.length, status: row.status, interrupts: row.interrupts };
  };

  /**
   * A thread waiting at its second `interrupt()`: the first one (`stale`) was answered by a strict resume
   * (which goes through), so its id is no longer pending; `pending` is the one waiting now.
   */
  async function waitingThread(): Promise<{ thread: string; stale: string; pending: string }> {
    const thread = await newThread(server.storage);
    await client.runs.wait(thread, "approval", { input: { request: "first" } });
    const [stale] = await pendingIds(thread);
    const answered = await client.runs.wait(thread, "approval", { command: { resume: { [stale!]: "yes" } }, strictResume: true });
    expect(answered).toEqual({ request: "first", decision: "yes" });
    await client.runs.wait(thread, "approval", { input: { request: "second" } });
    const [pending] = await pendingIds(thread);
    expect(pending).toBeDefined();
    expect(pending).not.toBe(stale);
    return { thread, stale: stale!, pending: pending! };
  }

  it("wait: a stale interrupt id fails the run with UnknownInterruptError; the thread is unchanged; the right id goes through", async () => {
    const { thread, stale, pending } = await waitingThread();
    const before = await threadAsItIs(thread);
    expect(before.status).toBe("interrupted");

    const refused = await client.runs.wait(thread, "approval", {
      command: { resume: { [stale]: "late answer" } },
      strictResume: true,
      raiseError: false,
    });
    expect(refused).toMatchObject({ __error__: { error: "UnknownInterruptError", message: expect.stringContaining(stale) } });
    const [failed] = await client.runs.list(thread, { limit: 1 });
    expect(failed).toMatchObject({ status: "error", kwargs: { strict_resume: true } });
    expect(await threadAsItIs(thread)).toEqual(before);
    expect(await pendingIds(thread)).toEqual([pending]);
    // The SDK raises the run's error by default.
    await expect(client.runs.wait(thread, "approval", { command: { resume: { [stale]: "again" } }, strictResume: true })).rejects.toThrow(
      /UnknownInterruptError/,
    );
    expect(await threadAsItIs(thread)).toEqual(before);

    const resumed = await client.runs.wait(thread, "approval", { command: { resume: { [pending]: "ok" } }, strictResume: true });
    expect(resumed).toEqual({ request: "second", decision: "ok" });
    expect((await client.threads.get(thread)).status).toBe("idle");
  });

  it("create and stream: the same refusal, as a failed background run and as the stream's error event", async () => {
    const { thread, stale, pending } = await waitingThread();
    const before = await threadAsItIs(thread);

    const run = await client.runs.create(thread, "approval", { command: { resume: { [stale]: "x" } }, strictResume: true });
    await client.runs.join(thread, run.run_id);
    expect((await client.runs.get(thread, run.run_id)).status).toBe("error");
    expect(await threadAsItIs(thread)).toEqual(before);

    const events: Array<{ event: string; data: unknown }> = [];
    for await (const part of client.runs.stream(thread, "approval", { command: { resume: { [stale]: "x" } }, strictResume: true })) {
      events.push(part as { event: string; data: unknown });
    }
    expect(events.find((e) => e.event === "error")?.data).toMatchObject({ error: "UnknownInterruptError" });
    expect(await threadAsItIs(thread)).toEqual(before);

    const streamed: string[] = [];
    for await (const part of client.runs.stream(thread, "approval", { command: { resume: { [pending]: "fine" } }, strictResume: true })) {
      streamed.push(part.event);
    }
    expect(streamed).not.toContain("error");
    expect((await client.threads.getState(thread)).values).toEqual({ request: "second", decision: "fine" });
  });

  it("stateless: a strict resume on a fresh thread has nothing to answer and fails", async () => {
    const ghost = "0123456789abcdef0123456789abcdef";
    const refused = await client.runs.wait(null, "approval", {
      command: { resume: { [ghost]: 1 } },
      strictResume: true,
      raiseError: false,
    });
    expect(refused).toMatchObject({ __error__: { error: "UnknownInterruptError" } });
    // Over the wire as the SDK sends it (snake_case), also through a batch item written camelCase.
    const wire = await raw(`${server.url}/runs/wait`, "POST", {
      assistant_id: "approval",
      command: { resume: { [ghost]: 1 } },
      strict_resume: true,
    });
    expect(wire.body).toMatchObject({ __error__: { error: "UnknownInterruptError" } });
    const [batched] = (
      await raw(`${server.url}/runs/batch`, "POST", [
        { assistantId: "approval", command: { resume: { [ghost]: 1 } }, strictResume: true, onCompletion: "keep" },
      ])
    ).body as Array<{ run_id: string; thread_id: string }>;
    await client.runs.join(batched!.thread_id, batched!.run_id);
    expect((await client.runs.get(batched!.thread_id, batched!.run_id)).status).toBe("error");
  });

  it("without strict_resume a stale id is not refused: the run succeeds and asks again (the behaviour before it)", async () => {
    const { thread, stale } = await waitingThread();
    const answered = await client.runs.wait(thread, "approval", { command: { resume: { [stale]: "ignored" } }, raiseError: false });
    expect(answered).not.toHaveProperty("__error__");
    const [latest] = await client.runs.list(thread, { limit: 1 });
    expect(latest?.status).toBe("success");
    expect((latest as { kwargs?: Record<string, unknown> } | undefined)?.kwargs).not.toHaveProperty("strict_resume");
    // The stale answer is dropped: the run "succeeds" by asking the pending question again.
    expect(answered).toMatchObject({ __interrupt__: [{ value: { question: "approve second?" } }] });
    expect((await client.threads.get(thread)).status).toBe("interrupted");
  });

  it("/info advertises strict_resume", async () => {
    const info = (await raw(`${server.url}/info`, "GET")).body as { flags: Record<string, unknown> };
    expect(info.flags.strict_resume).toBe(true);
  });
});
