import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "@agent-server/engine/testing";
import { outboundUrlPolicy } from "@agent-server/engine";
import { drivers } from "@agent-server/testing";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { hello, raw } from "../../test/support/runs.js";

/** A webhook receiver on loopback (real HTTP). */
async function loopbackReceiver(): Promise<{ url: string; bodies: unknown[]; close: () => Promise<void> }> {
  const bodies: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      bodies.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const METADATA = [
  "http://169.254.169.254/latest/meta-data/",
  "http://2852039166/",
  "http://[::ffff:169.254.169.254]/",
  "http://0.0.0.0:8080/",
];

describe("webhook URL policy at run and cron creation", () => {
  let server: TestServer | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await server?.close();
    server = undefined;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(mode: "dev" | "serve") {
    const { storage, dispose } = await drivers.find((driver) => driver.name === "sqlite")!.open();
    cleanups.push(dispose);
    const hooks = new Hono().post("/custom/webhook", (c) => c.json({ ok: true }));
    server = await startTestServer(storage, { engine: { urlPolicy: outboundUrlPolicy(undefined, mode) }, app: { httpApp: hooks } });
    return server;
  }

  it("serve: refuses loopback, private and metadata targets with 422 before anything is written", async () => {
    const { url, client, storage } = await start("serve");
    const hook = await loopbackReceiver();
    cleanups.push(hook.close);
    const thread = await client.threads.create();
    const threadsBefore = (await raw(`${url}/threads/search`, "POST", {})).body as unknown[];
    for (const webhook of [...METADATA, hook.url, "http://localhost:9/hook", "http://10.0.0.8/hook", "http://[fd00::1]/hook"]) {
      for (const [path, body] of [
        [`/threads/${thread.thread_id}/runs`, { assistant_id: "echo", input: hello, webhook }],
        [`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "echo", input: hello, webhook }],
        ["/runs/wait", { assistant_id: "echo", input: hello, webhook }],
        ["/runs/crons", { assistant_id: "echo", schedule: "0 0 1 1 *", webhook }],
      ] as const) {
        const response = await raw(`${url}${path}`, "POST", body);
        expect(response.status, `${path} ${webhook}`).toBe(422);
        expect((response.body as { detail: string }).detail).toMatch(
          /^webhook refused: host .* is an? (link-local|unspecified|loopback|private)/,
        );
      }
    }
    expect(await storage.runs.search({ limit: 10 })).toEqual([]);
    expect((await raw(`${url}/threads/search`, "POST", {})).body).toHaveLength(threadsBefore.length);
    expect(await client.crons.search({})).toEqual([]);

    const cron = await client.crons.create("echo", { schedule: "0 0 1 1 *", webhook: "https://hooks.example.com/done" });
    const patched = await raw(`${url}/runs/crons/${cron.cron_id}`, "PATCH", { webhook: "http://169.254.169.254/" });
    expect(patched.status).toBe(422);
    expect(hook.bodies).toEqual([]);

    // A path on this server stays allowed: it is this server, by design.
    const run = await client.runs.create(thread.thread_id, "echo", { input: hello, webhook: "/custom/webhook" });
    await client.runs.join(thread.thread_id, run.run_id);
  });

  it("dev: delivers to a loopback receiver, and still refuses link-local and metadata targets", async () => {
    const { url, client } = await start("dev");
    const hook = await loopbackReceiver();
    cleanups.push(hook.close);
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", { input: hello, webhook: hook.url });
    await client.runs.join(thread.thread_id, run.run_id);
    await eventually(async () => hook.bodies.length === 1);
    expect(hook.bodies[0]).toMatchObject({ run_id: run.run_id, status: "success" });
    for (const webhook of METADATA) {
      const response = await raw(`${url}/threads/${thread.thread_id}/runs`, "POST", { assistant_id: "echo", input: hello, webhook });
      expect(response.status, webhook).toBe(422);
      expect((response.body as { detail: string }).detail).toMatch(/^webhook refused: host .* is an? (link-local|unspecified)/);
    }
  });
});
