import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, killAll, startCli } from "../../test/support/cli-process.js";

/** A webhook receiver on loopback: real HTTP, records the run ids it was sent. */
async function receiver(): Promise<{ url: string; runIds: string[]; close: () => Promise<void> }> {
  const runIds: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      runIds.push((JSON.parse(body) as { run_id: string }).run_id);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, runIds, close: () => new Promise((done) => server.close(() => done())) };
}

async function createRun(base: string, webhook: string): Promise<{ status: number; body: { detail?: string } }> {
  const response = await fetch(`${base}/runs/wait`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] }, webhook }),
  });
  return { status: response.status, body: (await response.json()) as { detail?: string } };
}

async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(check()).toBe(true);
}

describe("webhook URL policy: dev vs serve (the CLI, real HTTP)", () => {
  const dirs: string[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await killAll();
    for (const close of closers.splice(0)) await close();
    dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  const args = (command: "dev" | "serve", config: string) => [
    command,
    "--config",
    config,
    "--storage",
    "memory",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--log-format",
    "json",
    ...(command === "dev" ? ["--no-reload"] : []),
  ];

  it("dev delivers a webhook to localhost; serve answers 422 and sends nothing; link-local is refused by both", async () => {
    const hook = await receiver();
    closers.push(hook.close);
    const dev = await startCli(args("dev", EXAMPLE_CONFIG));
    const delivered = await createRun(dev.url, hook.url);
    expect(delivered.status).toBe(200);
    await eventually(() => hook.runIds.length === 1);
    expect((await createRun(dev.url, "http://169.254.169.254/latest/meta-data/")).status).toBe(422);

    const serve = await startCli(args("serve", EXAMPLE_CONFIG));
    const refused = await createRun(serve.url, hook.url);
    expect(refused).toEqual({ status: 422, body: { detail: "webhook refused: host 127.0.0.1 is a loopback address" } });
    expect((await createRun(serve.url, "http://2852039166/")).body.detail).toMatch(/169\.254\.169\.254 is a link-local/);
    expect(hook.runIds).toHaveLength(1);
  });

  it("serve delivers to loopback when langgraph.json allows it (webhooks.url.disable_loopback: false)", async () => {
    const hook = await receiver();
    closers.push(hook.close);
    const dir = mkdtempSync(join(tmpdir(), "agent-server-webhooks-"));
    dirs.push(dir);
    const examples = dirname(EXAMPLE_CONFIG);
    const config = join(dir, "langgraph.json");
    writeFileSync(
      config,
      JSON.stringify({
        graphs: { echo: `${resolve(examples, "src/echo.ts")}:graph` },
        webhooks: { url: { require_https: false, disable_loopback: false } },
      }),
    );
    const serve = await startCli(args("serve", config));
    const created = await createRun(serve.url, hook.url);
    expect(created.status).toBe(200);
    await eventually(() => hook.runIds.length === 1);
    expect(hook.runIds).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });
});
