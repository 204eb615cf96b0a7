import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentCard, SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Client } from "@langchain/langgraph-sdk";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createTestSchema } from "@agent-server/testing/postgres";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, startCli } from "../../../test/support/cli-process.js";
import { parsePrometheusText, type Exposition } from "../../../test/support/prometheus-text.js";

const ECHO = fileURLToPath(new URL("../../../../../examples/src/echo.ts", import.meta.url));
const AUTH = fileURLToPath(new URL("../../../test/support/fixture-project/auth.ts", import.meta.url));
const METRICS_APP = fileURLToPath(new URL("../../../test/support/fixture-project/metrics-app.ts", import.meta.url));
const KEY = { "x-api-key": "fixture-secret" };

const dirs: string[] = [];
afterEach(async () => {
  await killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project folder with the echo graph, the fixture's auth and `http` settings; returns its langgraph.json. */
function project(http: Record<string, unknown> = {}): { config: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "agent-server-metrics-"));
  dirs.push(dir);
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { echo: `${ECHO}:graph` }, auth: { path: `${AUTH}:auth` }, http }));
  return { config, dir };
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Exposition> {
  const response = await fetch(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

/** Scrapes until `check` holds (gauges read at scrape time settle once runs have fully left this process). */
async function scrapeUntil(
  url: string,
  check: (metrics: Exposition) => boolean,
  headers: Record<string, string> = {},
): Promise<Exposition> {
  for (let i = 0; ; i += 1) {
    const metrics = await scrape(url, headers);
    if (check(metrics) || i >= 100) return metrics;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function hello(text: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } });
}

describe("GET /metrics", () => {
  it("counts exactly the runs and calls made (3 runs.wait, 2 A2A SendMessage, 1 MCP tools/call), without a token under custom auth", async () => {
    const { config, dir } = project();
    const server = await startCli(["dev", "--config", config, "--storage", "sqlite", "--data-dir", dir, "--port", "0", "--no-reload"]);
    // The project's auth guards the API, not /metrics (as /ok).
    expect((await fetch(`${server.url}/threads/search`, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await fetch(`${server.url}/no/such/${crypto.randomUUID()}`, { headers: KEY })).status).toBe(404);
    const before = await scrape(server.url);
    expect(before.family("agent_server_runs_pending").type).toBe("gauge");
    expect(before.family("agent_server_run_duration_seconds").type).toBe("histogram");
    expect(before.family("nodejs_eventloop_lag_seconds").type).toBe("gauge");
    expect(before.value("agent_server_info", { storage: "sqlite" })).toBe(1);

    const client = new Client({ apiUrl: server.url, defaultHeaders: KEY });
    for (const text of ["a", "b", "c"]) {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "echo", { input: { messages: [{ role: "user", content: text }] } });
    }
    const withKey: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...KEY } });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })] }),
    );
    const card = AgentCard.fromJSON(await (await withKey(`${server.url}/a2a/echo/.well-known/agent-card.json`)).json());
    const agent = await factory.createFromAgentCard(card);
    for (const text of ["d", "e"]) await agent.sendMessage(hello(text));
    const mcp = new McpClient({ name: "metrics-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: KEY } }));
    try {
      const reply = await mcp.callTool({ name: "echo", arguments: { messages: [{ type: "human", content: "f" }] } });
      expect(reply.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }

    const after = await scrapeUntil(
      server.url,
      (m) => m.value("agent_server_runs_running") === 0 && m.value("agent_server_stream_subscriptions") === 0,
    );
    const delta = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
    const echo = { graph: "echo" };
    expect(delta("agent_server_runs_admitted_total", echo)).toBe(6);
    expect(delta("agent_server_run_attempts_total", echo)).toBe(6);
    expect(delta("agent_server_runs_ended_total", { ...echo, status: "success" })).toBe(6);
    expect(delta("agent_server_runs_ended_total")).toBe(6);
    expect(delta("agent_server_run_duration_seconds_count", echo)).toBe(6);
    expect(delta("agent_server_run_queue_wait_seconds_count", echo)).toBe(6);
    expect(delta("agent_server_a2a_calls_total", { method: "SendMessage", binding: "jsonrpc", outcome: "ok" })).toBe(2);
    expect(delta("agent_server_a2a_calls_total")).toBe(2);
    expect(delta("agent_server_mcp_tool_calls_total", { tool: "echo", outcome: "ok" })).toBe(1);
    expect(delta("agent_server_mcp_tool_calls_total")).toBe(1);
    expect(delta("agent_server_runs_requeued_total")).toBe(0);
    // Gauges are back to rest once every run ended.
    expect(after.value("agent_server_runs_pending")).toBe(0);
    expect(after.value("agent_server_runs_running")).toBe(0);
    expect(after.value("agent_server_thread_streams")).toBe(0);
    // HTTP requests by route template, never the raw path.
    const waits = { route: "/threads/:thread_id/runs/wait", method: "POST", status: "200" };
    expect(delta("agent_server_http_request_duration_seconds_count", waits)).toBe(3);
    expect(delta("agent_server_http_request_duration_seconds_count", { route: "/a2a/:assistant_id", method: "POST" })).toBe(2);
    expect(after.value("agent_server_http_request_duration_seconds_count", { route: "/threads/search", status: "401" })).toBe(1);
    expect(after.value("agent_server_http_request_duration_seconds_count", { route: "unmatched", status: "404" })).toBe(1);
    const routes = new Set(after.family("agent_server_http_request_duration_seconds").samples.map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it("http.disable_metrics: /metrics answers 404 like any unknown route", async () => {
    const { config } = project({ disable_metrics: true });
    const server = await startCli(["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload"]);
    const response = await fetch(`${server.url}/metrics`, { headers: KEY });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "Not found: GET /metrics" });
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
  });

  it("a project whose http.app serves GET /metrics keeps it: the project's routes win over the server's", async () => {
    const { config } = project({ app: `${METRICS_APP}:app` });
    const server = await startCli(["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload"]);
    // Behind the project's auth, as every custom route.
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const response = await fetch(`${server.url}/metrics`, { headers: KEY });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("# the project's own metrics\nproject_metric 1\n");
  });

  it("http.metrics_auth: /metrics goes through the project's auth; a joined stream and a deferred run show in the gauges until cancelled", async () => {
    const { config } = project({ metrics_auth: true });
    const server = await startCli(["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload"]);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const metrics = await scrape(server.url, KEY);
    expect(metrics.value("agent_server_info", { storage: "memory" })).toBe(1);

    // A deferred run is pending; a client joining its stream is a live subscription until it is cancelled.
    const client = new Client({ apiUrl: server.url, defaultHeaders: KEY });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", { input: { messages: [] }, afterSeconds: 3600 });
    const joined = (async () => {
      for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id)) void chunk;
    })();
    const following = await scrapeUntil(server.url, (m) => m.value("agent_server_stream_subscriptions") === 1, KEY);
    expect(following.value("agent_server_stream_subscriptions")).toBe(1);
    expect(following.value("agent_server_runs_pending")).toBe(1);
    await client.runs.cancel(thread.thread_id, run.run_id);
    await joined;
    const ended = await scrapeUntil(server.url, (m) => m.value("agent_server_stream_subscriptions") === 0, KEY);
    expect(ended.value("agent_server_stream_subscriptions")).toBe(0);
    expect(ended.value("agent_server_runs_pending")).toBe(0);
    expect(ended.value("agent_server_runs_ended_total", { graph: "echo", status: "interrupted" })).toBe(1);
    expect(ended.value("agent_server_run_duration_seconds_count")).toBe(0);
  });

  it("serve on PostgreSQL reports the pool's connections and the queue's depth", async () => {
    const schema = await createTestSchema("metrics_pool");
    try {
      const { config } = project();
      const server = await startCli([
        "serve",
        ...["--config", config, "--host", "127.0.0.1", "--port", "0", "--workers", "2"],
        ...["--storage", "postgres", "--database-url", schema.url, "--database-schema", schema.schema],
      ]);
      const client = new Client({ apiUrl: server.url, defaultHeaders: KEY });
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "echo", { input: { messages: [{ role: "user", content: "pg" }] } });
      const metrics = await scrapeUntil(server.url, (m) => m.value("agent_server_runs_running") === 0);
      expect(metrics.value("agent_server_info", { storage: "postgres" })).toBe(1);
      expect(metrics.value("agent_server_pg_pool_connections")).toBeGreaterThanOrEqual(1);
      expect(metrics.value("agent_server_pg_pool_idle_connections")).toBeGreaterThanOrEqual(0);
      expect(metrics.value("agent_server_pg_pool_idle_connections")).toBeLessThanOrEqual(metrics.value("agent_server_pg_pool_connections"));
      // Read while the scrape's own count may wait for a connection: present, not necessarily 0.
      expect(metrics.family("agent_server_pg_pool_waiting_clients").samples).toHaveLength(1);
      expect(metrics.value("agent_server_runs_pending")).toBe(0);
      expect(metrics.value("agent_server_runs_ended_total", { graph: "echo", status: "success" })).toBe(1);
      expect(metrics.value("agent_server_workers_max")).toBe(2);
    } finally {
      await killAll();
      await schema.drop();
    }
  });
});
