import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jsonLines, killAll, startCli } from "./testing/cli-process.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./testing/otlp-receiver.js";

/**
 * OpenTelemetry traces of real `agent-server serve` processes, exported over OTLP/HTTP to a receiver in
 * the test, as to a collector: one trace per request, from the caller's `traceparent` down to the run's
 * nodes, model and tool calls and storage statements.
 */
const PROJECT = fileURLToPath(new URL("./testing/fixture-project/langgraph-tracing.json", import.meta.url));

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

/** The environment that turns tracing on, exporting to the test's receiver without waiting long. */
export function otlpEnv(receiverUrl: string, protocol: "http/json" | "http/protobuf", instance: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_SERVICE_NAME: "agent-server-test",
    OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${instance}`,
  };
}

/** A caller's W3C trace context: a fresh trace id and the caller's own span id. */
export function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = crypto.randomUUID().replaceAll("-", "");
  const spanId = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Waits until the spans of `traceId` include every name in `names`; fails after 30 s saying which are missing. */
export async function traceWith(receiver: OtlpReceiver, traceId: string, names: (string | RegExp)[]): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const spans = receiver.spans().filter((s) => s.traceId === traceId);
    const missing = names.filter((name) => !spans.some((s) => (typeof name === "string" ? s.name === name : name.test(s.name))));
    if (missing.length === 0) return spans;
    if (Date.now() > deadline) {
      throw new Error(
        `trace ${traceId} lacks ${missing.join(", ")}; it has ${spans.map((s) => s.name).join(", ")}; all traces: ${receiver.spans().length} spans`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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

const byId = (spans: ReceivedSpan[]) => new Map(spans.map((s) => [s.spanId, s]));

/** The names on the way from `span` up to the trace's root. */
function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const index = byId(spans);
  const names: string[] = [];
  for (let at: ReceivedSpan | undefined = span; at; at = index.get(at.parentSpanId)) names.push(at.name);
  return names;
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
      { env: otlpEnv(receiver.url, "http/json", "sqlite-1") },
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
    console.log(spans.map((s) => s.name).join(", "));
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
    const started = jsonLines(server.stdout()).find((l) => l.msg === "run started");
    expect(started).toMatchObject({ trace_id: caller.traceId, span_id: run.spanId });
  }, 60_000);
});
