import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../../test/support/index.js";
import { httpDrivers, openServer } from "../../test/support/http.js";
import { ok, readSse, refused, rootLifecycle, terminals, type WireEvent } from "../../test/support/thread-stream.js";

/**
 * `input.respond` with `strict_resume` (the SDK's `respondInput(params, { strictResume: true })`): the
 * command is accepted and the run checks the ids when it executes. A stale id fails it with a root
 * `failed` lifecycle carrying `{ reason, interrupt_ids, pending_ids }`, and leaves the thread as it was;
 * the pending id then goes through.
 */

const CHANNELS = ["lifecycle", "input"];

describe.each(httpDrivers)("input.respond with strict_resume ($name)", (driver) => {
  let server: TestServer;
  beforeAll(async () => (server = await openServer(driver)));
  afterAll(() => server.close());

  /** The thread's events until it has seen `ends` root terminal lifecycle events. */
  const eventsUntil = async (threadId: string, ends: number) =>
    (await readSse(server.url, threadId, { channels: CHANNELS }, terminals(ends))).events;
  const requestedIds = (events: WireEvent[]) =>
    events.filter((e) => e.method === "input.requested").map((e) => (e.params.data as { interrupt_id: string }).interrupt_id);
  const threadAsItIs = async (threadId: string) => {
    const state = await server.client.threads.getState(threadId);
    const history = await server.client.threads.getHistory(threadId, { limit: 100 });
    const row = await server.client.threads.get(threadId);
    return { checkpoint: state.checkpoint.checkpoint_id, checkpoints: history.length, status: row.status, interrupts: row.interrupts };
  };

  it("a stale interrupt id fails the run (failed lifecycle with reason and ids), the thread unchanged; the pending id goes through", async () => {
    const threadId = crypto.randomUUID();
    const thread = server.client.threads.stream(threadId, { assistantId: "approval" });
    try {
      await ok(server.url, threadId, "run.start", { assistant_id: "approval", input: { request: "first" } });
      const [stale] = requestedIds(await eventsUntil(threadId, 1));
      // A correct strict answer goes through.
      await thread.respondInput({ namespace: [], interrupt_id: stale!, response: "yes" }, { strictResume: true });
      expect(rootLifecycle(await eventsUntil(threadId, 2)).at(-1)).toBe("completed");

      await ok(server.url, threadId, "run.start", { assistant_id: "approval", input: { request: "second" } });
      const waiting = await eventsUntil(threadId, 3);
      const pending = requestedIds(waiting).at(-1)!;
      expect(pending).not.toBe(stale);
      const before = await threadAsItIs(threadId);
      expect(before.status).toBe("interrupted");

      // Without strict_resume the command itself is refused, as before.
      await refused(server.url, threadId, "input.respond", { namespace: [], interrupt_id: stale, response: "late" }, "no_such_interrupt");
      // With it, the command is accepted and the run fails.
      await thread.respondInput({ namespace: [], interrupt_id: stale!, response: "late" }, { strictResume: true });
      const afterRefusal = await eventsUntil(threadId, 4);
      expect(rootLifecycle(afterRefusal).slice(-2)).toEqual(["running", "failed"]);
      const failed = afterRefusal.filter((e) => e.method === "lifecycle" && e.params.namespace.length === 0).at(-1)!;
      expect(failed.params.data).toMatchObject({
        event: "failed",
        error: expect.stringContaining(stale!),
        reason: "not_pending",
        interrupt_ids: [stale],
        pending_ids: [pending],
      });
      const [refusedRun] = await server.client.runs.list(threadId, { limit: 1 });
      await server.client.runs.join(threadId, refusedRun!.run_id);
      expect((await server.client.runs.get(threadId, refusedRun!.run_id)).status).toBe("error");
      expect(await threadAsItIs(threadId)).toEqual(before);

      await thread.respondInput({ namespace: [], interrupt_id: pending, response: "ok" }, { strictResume: true });
      expect(rootLifecycle(await eventsUntil(threadId, 5)).at(-1)).toBe("completed");
      expect((await server.client.threads.getState(threadId)).values).toEqual({ request: "second", decision: "ok" });
    } finally {
      await thread.close();
    }
  });
});
