import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "@agent-server/engine/testing";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { hello, raw } from "../../test/support/runs.js";

/** A project's http.app that records the webhooks it is sent. */
function hooksApp() {
  const received: { path: string; body: Record<string, unknown> }[] = [];
  const app = new Hono().post("/custom/webhook/:kind", async (c) => {
    received.push({ path: c.req.path, body: await c.req.json() });
    return c.json({ status: "success" });
  });
  return { app, received };
}

describe("webhook: a path on this server (relative webhook)", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("is accepted on runs and crons, and delivered in-process to the project's http.app", async () => {
    const hooks = hooksApp();
    server = await startTestServer(createMemoryStorage(), { app: { httpApp: hooks.app } });
    const thread = await server.client.threads.create();
    const run = await server.client.runs.create(thread.thread_id, "echo", { input: hello, webhook: "/custom/webhook/run" });
    await server.client.runs.join(thread.thread_id, run.run_id);
    const stateless = (
      await raw(`${server.url}/runs/wait`, "POST", { assistant_id: "echo", input: hello, webhook: "/custom/webhook/stateless" })
    ).status;
    expect(stateless).toBe(200);

    await eventually(async () => hooks.received.length === 2);
    const byPath = Object.fromEntries(hooks.received.map((r) => [r.path, r.body]));
    expect(byPath["/custom/webhook/run"]).toMatchObject({ run_id: run.run_id, thread_id: thread.thread_id, status: "success" });
    expect(byPath["/custom/webhook/stateless"]).toMatchObject({ status: "success", assistant_id: expect.any(String) });

    const cron = await server.client.crons.create("echo", { schedule: "0 0 1 1 *", input: hello, webhook: "/custom/webhook/cron" });
    expect(cron.payload).toMatchObject({ webhook: "/custom/webhook/cron" });
  });

  it("refuses what is neither an http(s) URL nor a path, with a 422 naming the field", async () => {
    server = await startTestServer(createMemoryStorage());
    for (const webhook of ["//other.example/hook", "ftp://other.example/hook", "hooks/done", "", "javascript:alert(1)"]) {
      const run = await raw(`${server.url}/runs`, "POST", { assistant_id: "echo", input: hello, webhook });
      expect(run.status, webhook).toBe(422);
      expect((run.body as { detail: string }).detail).toBe("webhook: expected an http(s) URL or a path on this server starting with /");
      const cron = await raw(`${server.url}/runs/crons`, "POST", { assistant_id: "echo", schedule: "0 0 1 1 *", webhook });
      expect(cron.status, webhook).toBe(422);
      expect((cron.body as { detail: string }).detail).toMatch(/^webhook: /);
    }
    const absolute = await raw(`${server.url}/runs`, "POST", { assistant_id: "echo", input: hello, webhook: "https://hooks.example/done" });
    expect(absolute.status).toBe(200);
  });
});
