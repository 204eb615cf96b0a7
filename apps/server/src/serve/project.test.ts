import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, runCli, startCli } from "../../test/support/cli-process.js";

const FIXTURE = fileURLToPath(new URL("../../test/support/fixture-project/langgraph.json", import.meta.url));
const FIXTURE_AUTH = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-auth.json", import.meta.url));
const ECHO_GRAPH = fileURLToPath(new URL("../../../../examples/src/echo.ts", import.meta.url));

afterEach(killAll);

/** A project with its own graphs, env and custom routes, on the memory storage with the default (pretty) logs. */
describe("agent-server dev with a project's langgraph.json (memory storage)", () => {
  it("applies env, mounts http.app before the API, and prints readable logs", async () => {
    const server = await startCli(["dev", "--config", FIXTURE, "--storage", "memory", "--port", "0", "--no-reload"]);

    // Pretty logs: one human line per event, no JSON records.
    expect(server.stdout()).toMatch(/INFO: Storage: memory/);
    expect(server.stdout()).toMatch(/INFO: Graphs: echo, slow/);
    expect(server.stdout()).toMatch(/INFO: Loading HTTP app from \.\/app\.ts:app/);
    expect(server.stdout()).not.toMatch(/^\{/m);

    // The custom route sees the env of langgraph.json; a custom route shadows the core one.
    const hello = await fetch(`${server.url}/custom/hello`);
    expect(await hello.json()).toEqual({ greeting: "hello from langgraph.json env" });
    expect(await (await fetch(`${server.url}/ok`)).json()).toEqual({ ok: true, from: "custom app" });

    // The API is still there behind it, and an unknown path is the API's JSON 404.
    const client = new Client({ apiUrl: server.url });
    const assistants = await client.assistants.search({ limit: 10 });
    expect(assistants.map((a) => a.graph_id).sort()).toEqual(["echo", "slow"]);
    const missing = await fetch(`${server.url}/no/such/route`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ detail: expect.stringContaining("/no/such/route") });

    // A run is logged start and end, the end with its status and duration.
    const values = (await client.runs.wait(null, "echo", { input: { messages: [{ role: "user", content: "pretty" }] } })) as {
      messages: { content: string }[];
    };
    expect(values.messages.at(-1)?.content).toBe("echo: pretty");
    await server.waitFor(/INFO: run ended \(success\) in \d+ ms/);
    expect(server.stdout()).toMatch(/INFO: run started \{"run_id":"[0-9a-f-]{36}"/);

    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toMatch(/SIGINT received: draining/);
  });

  it("loads the custom auth of langgraph.json: the API needs credentials, /ok does not", async () => {
    const server = await startCli(["dev", "--config", FIXTURE_AUTH, "--storage", "memory", "--port", "0", "--no-reload"]);
    expect(server.stdout()).toMatch(/INFO: Loading auth from \.\/auth\.ts:auth/);
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);

    const anonymous = new Client({ apiUrl: server.url });
    await expect(anonymous.assistants.search()).rejects.toThrow(/401/);
    const user = new Client({ apiUrl: server.url, defaultHeaders: { "x-api-key": "fixture-secret" } });
    expect((await user.assistants.search()).map((a) => a.graph_id)).toEqual(["echo"]);
  });

  it('starts with { "path", "description" } graph entries: the description is the assistant\'s and its agent card\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-graphs-"));
    try {
      const config = join(dir, "langgraph.json");
      const description = "Repeats the last message back";
      writeFileSync(
        config,
        JSON.stringify({ graphs: { echo: { path: `${ECHO_GRAPH}:graph`, description }, plain: `${ECHO_GRAPH}:graph` } }),
      );
      const server = await startCli(["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload"]);
      const client = new Client({ apiUrl: server.url });
      const [echo] = await client.assistants.search({ graphId: "echo" });
      expect(echo).toMatchObject({ graph_id: "echo", name: "echo", description });
      const values = (await client.runs.wait(null, "echo", { input: { messages: [{ role: "user", content: "hi" }] } })) as {
        messages: { content: string }[];
      };
      expect(values.messages.at(-1)?.content).toBe("echo: hi");

      for (const path of ["/a2a/echo/.well-known/agent-card.json", "/.well-known/agent-card.json?assistant_id=echo"]) {
        const card = (await (await fetch(`${server.url}${path}`)).json()) as { description: string; skills: { description: string }[] };
        expect(card.description, path).toBe(description);
        expect(card.skills[0]?.description, path).toBe(description);
      }
      const plain = (await (await fetch(`${server.url}/a2a/plain/.well-known/agent-card.json`)).json()) as { description: string };
      // No description anywhere: a sentence naming the graph, not the assistant's uuid.
      expect(plain.description).toBe('Runs the LangGraph graph "plain".');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to start when auth.path names a missing file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-auth-"));
    try {
      const config = join(dir, "langgraph.json");
      writeFileSync(config, JSON.stringify({ graphs: {}, auth: { path: "./missing-auth.ts:auth" } }));
      const run = runCli(["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload"]);
      expect(await run.exited).toBe(2);
      expect(run.stdout()).toContain(join(dir, "missing-auth.ts"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
