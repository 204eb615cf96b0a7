import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonLines, killAll, startCli, type CliRun } from "../../../test/support/cli-process.js";
import { ancestry, callerContext, otlpEnv, startOtlpReceiver, traceWith, type OtlpReceiver } from "../../../test/support/otlp-receiver.js";

/**
 * Traces across `agent-server serve` processes over one PostgreSQL: a run admitted by one process and
 * executed by another, and a run whose process was SIGKILLed and resumed elsewhere, each stay one trace,
 * the caller's; the run's webhook carries that trace too.
 */
const PROJECT = fileURLToPath(new URL("../../../test/support/fixture-project/langgraph-tracing.json", import.meta.url));

type Server = CliRun & { url: string; name: string; client: Client };

let schema: TestSchema;
let receiver: OtlpReceiver;
let webhooks: { server: HttpServer; url: string; received: IncomingHttpHeaders[] };
const servers: Server[] = [];

async function startServe(name: string): Promise<Server> {
  const run = await startCli(
    [
      ...["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", "0", "--workers", "1", "--log-format", "json"],
      ...["--storage", "postgres", "--database-url", schema.url, "--database-schema", schema.schema],
    ],
    { env: otlpEnv(receiver.url, "http/json", name) },
  );
  const server = { ...run, name, client: new Client({ apiUrl: run.url }) };
  servers.push(server);
  return server;
}

beforeAll(async () => {
  schema = await createTestSchema("tracing");
  receiver = await startOtlpReceiver();
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    received.push(request.headers);
    request.resume().on("end", () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  webhooks = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}, 60_000);

afterAll(async () => {
  await killAll();
  await receiver?.close();
  await new Promise((resolve) => webhooks?.server.close(resolve));
  await schema?.drop();
});

/** The server whose logs say it started `runId` as `attempt`, once one does. */
async function executing(runId: string, attempt: number): Promise<Server> {
  for (;;) {
    const found = servers.find((s) =>
      jsonLines(s.stdout()).some((l) => l.msg === "run started" && l.run_id === runId && l.attempt === attempt),
    );
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("traces across serve processes on PostgreSQL", () => {
  it("a run admitted on one process and executed on another is one trace, and its webhook carries it", async () => {
    const a = await startServe("A");
    // A's only worker is busy, so the run admitted through A can only be executed by B.
    const busyThread = await a.client.threads.create();
    // Long enough for B's start on a loaded machine; cancelled (the sleep is abortable) once B took the run.
    const busy = await a.client.runs.create(busyThread.thread_id, "slow", { input: { ms: 60_000 } });
    await executing(busy.run_id, 1);
    const b = await startServe("B");

    const caller = callerContext();
    const traced = new Client({ apiUrl: a.url, defaultHeaders: { traceparent: caller.traceparent } });
    const thread = await traced.threads.create();
    const run = await traced.runs.create(thread.thread_id, "traced", {
      input: { messages: [{ role: "user", content: "over there" }] },
      webhook: webhooks.url,
    });
    expect(await executing(run.run_id, 1)).toBe(b);
    await a.client.runs.cancel(busyThread.thread_id, busy.run_id);
    await b.client.runs.join(thread.thread_id, run.run_id);

    const spans = await traceWith(receiver, caller.traceId, [
      "POST /threads/:thread_id/runs",
      "run.create",
      "run.queued",
      "run traced",
      "node think",
      "node act",
      "POST webhook",
    ]);
    const named = (name: string) => spans.find((s) => s.name === name)!;
    const http = named("POST /threads/:thread_id/runs");
    expect(http.parentSpanId).toBe(caller.spanId);
    expect(http.resource["service.instance.id"]).toBe("A");
    expect(named("run.create").resource["service.instance.id"]).toBe("A");
    const executed = named("run traced");
    expect(executed.resource["service.instance.id"]).toBe("B");
    expect(ancestry(spans, executed)).toEqual(["run traced", "run.create", "POST /threads/:thread_id/runs"]);
    expect(named("node think").resource["service.instance.id"]).toBe("B");
    // PostgreSQL statements of both processes in the one trace.
    const statements = spans.filter((s) => s.attributes["db.system"] === "postgresql");
    expect(new Set(statements.map((s) => s.resource["service.instance.id"]))).toEqual(new Set(["A", "B"]));
    expect(statements.find((s) => s.name.startsWith("INSERT") && s.name.endsWith("runs"))?.attributes["db.operation"]).toBe("INSERT");
    // The checkpointer writes the run's checkpoints and writes through the same pool: its statements too.
    expect(statements.some((s) => /\.checkpoint(s|_blobs|_writes)$/.test(s.name))).toBe(true);

    // The webhook went out with the trace: its traceparent names the delivery's own span.
    const delivery = named("POST webhook");
    expect(delivery.attributes).toMatchObject({ "agent_server.delivery.kind": "webhook", "http.response.status_code": 200 });
    expect(ancestry(spans, delivery)).toContain("run traced");
    const sent = webhooks.received.map((h) => h.traceparent).find((t) => typeof t === "string" && t.includes(caller.traceId));
    expect(sent).toBe(`00-${caller.traceId}-${delivery.spanId}-01`);
  }, 90_000);

  it("a run whose process was SIGKILLed continues the same trace on the process that resumes it", async () => {
    while (servers.length < 2) await startServe(servers.length === 0 ? "A" : "B");
    const caller = callerContext();
    const traced = new Client({ apiUrl: servers[0]!.url, defaultHeaders: { traceparent: caller.traceparent } });
    const thread = await traced.threads.create();
    const run = await traced.runs.create(thread.thread_id, "steps", {
      input: { messages: [{ role: "user", content: "survive" }], stepMs: 1500 },
    });
    const owner = await executing(run.run_id, 1);
    // Past its first checkpoint, so the next attempt resumes.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    owner.child.kill("SIGKILL");
    await owner.exited;
    const survivor = servers.find((s) => s !== owner)!;
    expect(await executing(run.run_id, 2)).toBe(survivor);
    await survivor.client.runs.join(thread.thread_id, run.run_id);
    expect((await survivor.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");

    const spans = await traceWith(receiver, caller.traceId, ["run.create", "run steps"]);
    const resumed = await (async () => {
      for (;;) {
        const found = receiver
          .spans()
          .find((s) => s.traceId === caller.traceId && s.name === "run steps" && s.attributes["agent_server.run.attempt"] === 2);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    expect(resumed.resource["service.instance.id"]).toBe(survivor.name);
    expect(resumed.attributes["agent_server.run.status"]).toBe("success");
    expect(resumed.parentSpanId).toBe(spans.find((s) => s.name === "run.create")!.spanId);
  }, 120_000);
});
