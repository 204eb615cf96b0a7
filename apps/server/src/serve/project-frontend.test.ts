import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, runCli, startCli } from "../../test/support/cli-process.js";

const FIXTURE = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-frontend.json", import.meta.url));

afterEach(killAll);

async function poll<T>(read: () => Promise<T | null>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A project with generative UI and custom routes that talk back to the server, as frontends use them. */
describe("agent-server dev with ui, relative webhooks and new Client() in custom routes", () => {
  it("bundles the ui at startup and serves it; custom routes reach the server in-process", async () => {
    const server = await startCli(["dev", "--config", FIXTURE, "--storage", "memory", "--port", "0", "--no-reload"]);
    expect(server.stdout()).toMatch(/INFO: Generative UI bundled for: echo/);
    const client = new Client({ apiUrl: server.url });

    const html = await client["~ui"].getComponent("echo", "echoed");
    expect(html).toBe(
      `<script src="${server.url}/ui/echo/entrypoint.js" onload='__LGUI_echo.render("echoed", "{{shadowRootId}}")'></script>`,
    );
    const script = await fetch(`${server.url}/ui/echo/entrypoint.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain('className: "echoed"');

    // `new Client()` without apiUrl, inside a custom route: sent to this server, not to localhost:8123.
    const viaRoute = (await (await fetch(`${server.url}/custom/client`)).json()) as { values: { messages: { content: string }[] } };
    expect(viaRoute.values.messages.at(-1)?.content).toBe("echo: from a custom route");

    // A relative webhook is POSTed to the project's own route.
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "hook me" }] },
      webhook: "/custom/webhook",
    });
    const delivered = await poll(async () => {
      const body = (await (await fetch(`${server.url}/custom/webhook`)).json()) as { run_id?: string } | null;
      return body?.run_id === run.run_id ? body : null;
    });
    expect(delivered).toMatchObject({ run_id: run.run_id, thread_id: thread.thread_id, status: "success" });
  });

  it("refuses to start on a ui file that does not bundle, naming the file and the line, without a stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-ui-"));
    try {
      const config = join(dir, "langgraph.json");
      writeFileSync(config, JSON.stringify({ graphs: {}, ui: { broken: "./ui.tsx" } }));
      writeFileSync(join(dir, "ui.tsx"), "export default {\n  Oops: () => { const x = ; },\n};\n");
      const run = runCli(["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload"]);
      expect(await run.exited).toBe(2);
      const output = run.stdout() + run.stderr();
      expect(output).toContain(`ui.broken: cannot bundle ${join(dir, "ui.tsx")}: ui.tsx:2:26: Unexpected ";"`);
      expect(output).not.toMatch(/^\s+at /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
