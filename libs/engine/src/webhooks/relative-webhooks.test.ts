import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";

/** The server's own app as the engine sees it: a fetch handler called in-process, recording what it is sent. */
function ownApp(options: { failures?: number } = {}) {
  const received: { method: string; path: string; contentType: string | null; body: Record<string, unknown> }[] = [];
  let attempts = 0;
  const fetch = async (request: Request): Promise<Response> => {
    attempts += 1;
    if (attempts <= (options.failures ?? 0)) return Response.json({ detail: "not yet" }, { status: 503 });
    const { pathname } = new URL(request.url);
    received.push({
      method: request.method,
      path: pathname,
      contentType: request.headers.get("content-type"),
      body: (await request.json()) as Record<string, unknown>,
    });
    return Response.json({ ok: true });
  };
  return { fetch, received, attempts: () => attempts };
}

// The outbox logic is the same on every driver; SQLite adds the restart.
describe.each(drivers.filter((d) => d.name !== "postgres"))("relative webhooks on $name", (driver) => {
  let storage: Storage;
  let engine: Engine | undefined;
  let dispose: () => Promise<void>;
  let reopen: (() => Promise<Storage>) | undefined;

  beforeEach(async () => {
    ({ storage, dispose, reopen } = await driver.open());
  });
  afterEach(async () => {
    await engine?.stop(0);
    engine = undefined;
    await dispose();
  });

  it("delivers a run's webhook '/path' into the in-process app, retrying while it fails", async () => {
    const app = ownApp({ failures: 1 });
    engine = await startEngine(storage, { loopback: app.fetch });
    const threadId = await newThread(storage);
    const run = await engine.createRun(
      { assistant_id: "echo", input: { messages: [{ role: "user", content: "in-process" }] }, webhook: "/hooks/done?source=run" },
      { threadId },
    );
    await engine.waitRun(run.run_id);
    await eventually(async () => app.received.length === 1);
    expect(app.attempts()).toBe(2);
    const [delivery] = app.received;
    expect(delivery.method).toBe("POST");
    expect(delivery.path).toBe("/hooks/done");
    expect(delivery.contentType).toBe("application/json");
    expect(delivery.body).toMatchObject({
      run_id: run.run_id,
      thread_id: threadId,
      status: "success",
      webhook_sent_at: expect.any(String),
    });
    expect(JSON.stringify(delivery.body.values)).toContain("echo: in-process");
  });

  it("gives a relative webhook up when there is no in-process app, saying why", async () => {
    engine = await startEngine(storage);
    await engine.outbox.enqueue({ kind: "webhook", url: "/hooks/done", payload: { run_id: "r" }, deliveryId: "relative-without-app" });
    const failed = await eventually(async () => {
      const delivery = await storage.deliveries.get("relative-without-app");
      return delivery?.status === "failed" ? delivery : undefined;
    }, 10_000);
    expect(failed.last_error).toBe("relative webhook /hooks/done: no in-process app to deliver it to");
    expect(failed.payload).toBeNull();
  });

  it("times out an in-process handler that never answers, like a receiver over the network", async () => {
    const hanging = (_request: Request) => new Promise<Response>(() => undefined);
    engine = await startEngine(storage, {
      loopback: hanging,
      outbox: { pollMs: 50, backoffMs: 50, maxBackoffMs: 100, maxAttempts: 2, timeoutMs: 100 },
    });
    await engine.outbox.enqueue({ kind: "webhook", url: "/hooks/slow", payload: {}, deliveryId: "relative-hanging" });
    const failed = await eventually(async () => {
      const delivery = await storage.deliveries.get("relative-hanging");
      return delivery?.status === "failed" ? delivery : undefined;
    });
    expect(failed).toMatchObject({ attempts: 2, last_error: "relative webhook /hooks/slow: timed out" });
  });

  if (driver.name === "sqlite")
    it("keeps an undelivered relative webhook across a restart and delivers it afterwards", async () => {
      const down = ownApp({ failures: Number.MAX_SAFE_INTEGER });
      engine = await startEngine(storage, {
        loopback: down.fetch,
        outbox: { pollMs: 50, backoffMs: 50, maxBackoffMs: 100, maxAttempts: 1000, timeoutMs: 2000 },
      });
      const threadId = await newThread(storage);
      const run = await engine.createRun({ assistant_id: "echo", input: { messages: [] }, webhook: "/hooks/later" }, { threadId });
      await engine.waitRun(run.run_id);
      await eventually(async () => down.attempts() >= 1);
      await engine.stop(0);
      engine = undefined;

      storage = await reopen!();
      const up = ownApp();
      engine = await startEngine(storage, { loopback: up.fetch });
      await eventually(async () => up.received.length === 1, 10_000);
      expect(up.received[0]).toMatchObject({ path: "/hooks/later", body: { run_id: run.run_id } });
    });
});
