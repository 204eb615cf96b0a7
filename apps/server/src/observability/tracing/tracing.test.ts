import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jsonLines, killAll, loggedRecord, startCli } from "../../../test/support/cli-process.js";
import { AgentCard, SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ancestry, callerContext, otlpEnv, startOtlpReceiver, traceWith, type OtlpReceiver } from "../../../test/support/otlp-receiver.js";

/**
 * OpenTelemetry traces of real `agent-server serve` processes, exported over OTLP/HTTP to a receiver in
 * the test, as to a collector: one trace per request, from the caller's `traceparent` down to the run's
 * nodes, model and tool calls and storage statements.
 */
const PROJECT = fileURLToPath(new URL("../../../test/support/fixture-project/langgraph-tracing.json", import.meta.url));

let receiver: OtlpReceiver;
let dataDir: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

afterEach(async () => {
  await killAll();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function sendMessage(url: string, agent: string, text: string, traceparent: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/a2a/${agent}`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", traceparent },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } },
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe("traces over OTLP/HTTP", () => {
  it("one A2A SendMessage on SQLite is one trace under the caller's traceparent: HTTP, call, admission, queue, run, nodes, model, tool, statements", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "agent-server-tracing-"));
    const server = await startCli(
      [
        "serve",
        "--config",
        PROJECT,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--storage",
        "sqlite",
        "--data-dir",
        dataDir,
        "--log-format",
        "json",
      ],
      // Every statement, however fast (the default leaves out those under 1 ms).
      { env: { ...otlpEnv(receiver.url, "http/json", "sqlite-1"), AGENT_SERVER_TRACE_SQLITE_MIN_MS: "0" } },
    );
    const caller = callerContext();
    const answer = await sendMessage(server.url, "traced", "hello", caller.traceparent);
    expect(JSON.stringify(answer)).toContain("shouted: HELLO");

    const spans = await traceWith(receiver, caller.traceId, [
      "POST /a2a/:assistant_id",
      "a2a/SendMessage",
      "run.create",
      "run.queued",
      "run traced",
      "node think",
      "node act",
      /^chat/,
      "execute_tool shout",
    ]);
    const http = spans.find((s) => s.name === "POST /a2a/:assistant_id")!;
    expect(http.parentSpanId).toBe(caller.spanId);
    expect(http.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/a2a/:assistant_id",
      "http.response.status_code": 200,
    });
    expect(http.resource).toMatchObject({ "service.name": "agent-server-test", "service.instance.id": "sqlite-1" });

    const run = spans.find((s) => s.name === "run traced")!;
    expect(run.attributes).toMatchObject({
      "agent_server.graph.id": "traced",
      "agent_server.run.attempt": 1,
      "agent_server.run.status": "success",
    });
    expect(ancestry(spans, run)).toEqual(["run traced", "run.create", "a2a/SendMessage", "POST /a2a/:assistant_id"]);
    // LangGraph's hidden start step is no node of the graph's.
    expect(spans.filter((s) => s.name.startsWith("node ")).map((s) => s.name)).toEqual(expect.arrayContaining(["node think", "node act"]));
    expect(spans.some((s) => s.name === "node __start__")).toBe(false);
    const queued = spans.find((s) => s.name === "run.queued")!;
    expect(queued.parentSpanId).toBe(run.parentSpanId);
    for (const node of ["node think", "node act"]) expect(spans.find((s) => s.name === node)!.parentSpanId).toBe(run.spanId);
    const chat = spans.find((s) => s.name.startsWith("chat"))!;
    expect(chat.attributes).toMatchObject({ "gen_ai.operation.name": "chat" });
    expect(chat.parentSpanId).toBe(spans.find((s) => s.name === "node think")!.spanId);
    const toolCall = spans.find((s) => s.name === "execute_tool shout")!;
    expect(toolCall.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shout" });
    expect(toolCall.parentSpanId).toBe(spans.find((s) => s.name === "node act")!.spanId);

    const statements = spans.filter((s) => s.attributes["db.system"] === "sqlite");
    expect(statements.length).toBeGreaterThan(0);
    expect(new Set(statements.map((s) => s.attributes["db.operation"]))).toEqual(expect.objectContaining(new Set(["SELECT", "INSERT"])));
    // Admission's insert of the run is under run.create; the run's own statements (checkpoints) under the run.
    const admissionInsert = statements.find((s) => s.name === "INSERT runs");
    expect(admissionInsert && ancestry(spans, admissionInsert)).toContain("run.create");
    expect(statements.some((s) => ancestry(spans, s).includes("run traced"))).toBe(true);

    // Log records made inside the trace carry its ids.
    const started = await loggedRecord(server, (l) => l.msg === "run started");
    expect(started).toMatchObject({ trace_id: caller.traceId, span_id: run.spanId });
  }, 60_000);

  it("http/protobuf, gRPC: a SendMessage over gRPC continues the traceparent of its metadata, and a stop exports what was still buffered", async () => {
    const server = await startCli(
      [
        "serve",
        "--config",
        PROJECT,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--storage",
        "memory",
        "--grpc-port",
        "0",
        "--log-format",
        "json",
      ],
      // Nothing is exported on a timer during the case: only the stop's flush sends the spans.
      { env: { ...otlpEnv(receiver.url, "http/protobuf", "grpc-1"), OTEL_BSP_SCHEDULE_DELAY: "600000" } },
    );
    const response = await fetch(`${server.url}/a2a/traced/.well-known/agent-card.json`);
    const card = AgentCard.fromJSON(await response.json());
    const caller = callerContext();
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new GrpcTransportFactory()],
        preferredTransports: ["GRPC"],
        clientConfig: {
          interceptors: [
            {
              before: async (args) => {
                args.options = {
                  ...args.options,
                  serviceParameters: { ...args.options?.serviceParameters, traceparent: caller.traceparent },
                };
              },
              after: async () => undefined,
            },
          ],
        },
      }),
    );
    const client = await factory.createFromAgentCard(card);
    const task = (await client.sendMessage(
      SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "grpc" }] } }),
    )) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(receiver.spans().filter((s) => s.traceId === caller.traceId)).toEqual([]);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const spans = await traceWith(receiver, caller.traceId, [
      "lf.a2a.v1.A2AService/SendMessage",
      "run.create",
      "run traced",
      "node think",
      "node act",
    ]);
    expect(receiver.contentTypes()).toContain("application/x-protobuf");
    const call = spans.find((s) => s.name === "lf.a2a.v1.A2AService/SendMessage")!;
    expect(call.parentSpanId).toBe(caller.spanId);
    expect(call.attributes).toMatchObject({ "rpc.system": "grpc", "rpc.method": "SendMessage" });
    expect(call.resource).toMatchObject({ "service.name": "agent-server-test", "service.instance.id": "grpc-1" });
    const run = spans.find((s) => s.name === "run traced")!;
    expect(ancestry(spans, run)).toEqual(["run traced", "run.create", "lf.a2a.v1.A2AService/SendMessage"]);
    expect(run.attributes["agent_server.run.status"]).toBe("success");
  }, 60_000);

  it("an MCP tools/call is a span of the caller's trace, the run it starts under it", async () => {
    const server = await startCli(
      ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--storage", "memory", "--log-format", "json"],
      { env: otlpEnv(receiver.url, "http/json", "mcp-1") },
    );
    const caller = callerContext();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { traceparent: caller.traceparent } },
    });
    const client = new McpClient({ name: "tracing-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const reply = await client.callTool({ name: "traced", arguments: { messages: [{ type: "human", content: "mcp" }] } });
      expect(JSON.stringify(reply.content)).toContain("shouted: MCP");
    } finally {
      await client.close();
    }
    const spans = await traceWith(receiver, caller.traceId, ["tools/call traced", "run traced", "node act"]);
    const call = spans.find((s) => s.name === "tools/call traced")!;
    expect(call.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "traced" });
    const run = spans.find((s) => s.name === "run traced")!;
    expect(ancestry(spans, run).slice(0, 3)).toEqual(["run traced", "run.create", "tools/call traced"]);
    expect(ancestry(spans, run).at(-1)).toBe("POST /mcp");
  }, 60_000);

  it("every run has its node spans, and a graph that calls a model its model and tool spans, run after run", async () => {
    const server = await startCli(
      ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--storage", "memory", "--log-format", "json"],
      { env: otlpEnv(receiver.url, "http/json", "repeat-1") },
    );
    // A graph seen calling no model is traced through LangGraph's tasks stream after its first run, one
    // that calls a model through callbacks on every run: both ways give each node its span under the run.
    for (let turn = 1; turn <= 3; turn += 1) {
      const plain = callerContext();
      expect(JSON.stringify(await sendMessage(server.url, "steps", `plain ${turn}`, plain.traceparent))).toContain(`done: plain ${turn}`);
      const nodes = ["node plan", "node work", "node check", "node reply"];
      const spans = await traceWith(receiver, plain.traceId, ["run steps", ...nodes]);
      const run = spans.find((s) => s.name === "run steps")!;
      for (const node of nodes) {
        const span = spans.find((s) => s.name === node)!;
        expect(span.parentSpanId).toBe(run.spanId);
        expect(span.attributes["langgraph.node"]).toBe(node.slice("node ".length));
      }
      expect(spans.filter((s) => s.name.startsWith("node "))).toHaveLength(4);

      const modelled = callerContext();
      expect(JSON.stringify(await sendMessage(server.url, "traced", `turn ${turn}`, modelled.traceparent))).toContain(
        `shouted: TURN ${turn}`,
      );
      await traceWith(receiver, modelled.traceId, ["run traced", "node think", "node act", /^chat/, "execute_tool shout"]);
    }
  }, 60_000);

  it("SQLite statements faster than AGENT_SERVER_TRACE_SQLITE_MIN_MS make no span; the rest of the trace is whole", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "agent-server-tracing-"));
    const server = await startCli(
      ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--storage", "sqlite", "--data-dir", dataDir],
      { env: { ...otlpEnv(receiver.url, "http/json", "sqlite-quiet"), AGENT_SERVER_TRACE_SQLITE_MIN_MS: "10000" } },
    );
    const caller = callerContext();
    expect(JSON.stringify(await sendMessage(server.url, "traced", "quiet statements", caller.traceparent))).toContain("QUIET STATEMENTS");
    const spans = await traceWith(receiver, caller.traceId, ["POST /a2a/:assistant_id", "run.create", "run traced", "node act"]);
    expect(spans.filter((s) => s.attributes["db.system"] === "sqlite")).toEqual([]);
    // A statement's span would have been made inside these: the rest of the trace was exported with them.
    expect(spans.filter((s) => s.name.startsWith("node "))).toHaveLength(2);
  }, 60_000);

  it("concurrent runs on SQLite: each trace holds its own run's checkpoint writes, though they share commits", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "agent-server-tracing-"));
    const server = await startCli(
      ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--storage", "sqlite", "--data-dir", dataDir],
      { env: { ...otlpEnv(receiver.url, "http/json", "sqlite-concurrent"), AGENT_SERVER_TRACE_SQLITE_MIN_MS: "0" } },
    );
    const callers = Array.from({ length: 8 }, () => callerContext());
    await Promise.all(callers.map((caller, i) => sendMessage(server.url, "traced", `together ${i}`, caller.traceparent)));
    const checkpointWrites = await Promise.all(
      callers.map(async (caller) => {
        const spans = await traceWith(receiver, caller.traceId, ["run traced", "INSERT checkpoints"]);
        const run = spans.find((s) => s.name === "run traced")!;
        const writes = spans.filter((s) => s.name === "INSERT checkpoints");
        for (const write of writes) expect(ancestry(spans, write)).toContain("run traced");
        expect(run.attributes["agent_server.run.status"]).toBe("success");
        return writes.length;
      }),
    );
    // Every run of the same graph writes the same checkpoints: none is counted in another's trace.
    expect(new Set(checkpointWrites)).toEqual(new Set([checkpointWrites[0]]));
  }, 60_000);

  it("a streamed answer's HTTP span lasts until the stream ends, not until its headers are sent", async () => {
    const server = await startCli(
      ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--storage", "memory", "--log-format", "json"],
      { env: otlpEnv(receiver.url, "http/json", "stream-1") },
    );
    const caller = callerContext();
    const response = await fetch(`${server.url}/a2a/steps`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", traceparent: caller.traceparent },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendStreamingMessage",
        params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "streamed" }] } },
      }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(await response.text()).toContain("done: streamed");
    const spans = await traceWith(receiver, caller.traceId, ["POST /a2a/:assistant_id", "node reply"]);
    const http = spans.find((s) => s.name === "POST /a2a/:assistant_id")!;
    // Four nodes of 200 ms each were streamed through this response.
    expect(http.endMs).toBeGreaterThanOrEqual(spans.find((s) => s.name === "node reply")!.endMs);
    expect(http.endMs - http.startMs).toBeGreaterThanOrEqual(600);
    expect(http.attributes["http.response.status_code"]).toBe(200);
  }, 60_000);

  it("off unless configured: no OTEL_* variables, no trace ids in the logs and nothing exported", async () => {
    const before = receiver.spans().length;
    const server = await startCli(
      ["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--storage", "memory", "--log-format", "json"],
      {
        // Whatever the test's own environment says: no endpoint, no exporter.
        env: {
          OTEL_SERVICE_NAME: "agent-server-test",
          OTEL_EXPORTER_OTLP_ENDPOINT: "",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
          OTEL_TRACES_EXPORTER: "",
        },
      },
    );
    const caller = callerContext();
    const answer = await sendMessage(server.url, "traced", "quiet", caller.traceparent);
    expect(JSON.stringify(answer)).toContain("shouted: QUIET");
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const logs = jsonLines(server.stdout());
    expect(logs.some((l) => l.msg === "run started")).toBe(true);
    expect(logs.filter((l) => "trace_id" in l || "span_id" in l)).toEqual([]);
    expect(logs.some((l) => String(l.msg).includes("OpenTelemetry"))).toBe(false);
    expect(receiver.spans().length).toBe(before);
  }, 60_000);
});
