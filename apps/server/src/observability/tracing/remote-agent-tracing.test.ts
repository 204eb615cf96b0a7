import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../../../test/support/ports.js";
import { killAll, startCli } from "../../../test/support/cli-process.js";
import { ancestry, callerContext, otlpEnv, startOtlpReceiver, traceWith, type OtlpReceiver } from "../../../test/support/otlp-receiver.js";

/**
 * A remoteAgent call is a span of the calling run's trace, and its `traceparent` reaches the remote
 * server: a chain of our servers is one trace (issue 41). Two `serve` processes export to one receiver;
 * an A2A SendMessage to the caller's `relay` starts the chain.
 */
const PROJECT = fileURLToPath(new URL("../../../test/support/fixture-project/langgraph-remote-agents.json", import.meta.url));

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await killAll();
  await receiver?.close();
});

it("the remote call is a CLIENT span under the run, and the remote's request, run and nodes continue its trace", async () => {
  const remotePort = await freePort();
  const serve = (port: string, instance: string, env: Record<string, string> = {}) =>
    startCli(["serve", "--config", PROJECT, "--host", "127.0.0.1", "--port", port, "--storage", "memory", "--log-format", "json"], {
      env: { ...otlpEnv(receiver.url, "http/json", instance), ...env },
    });
  const [, caller] = await Promise.all([
    serve(String(remotePort), "remote"),
    serve("0", "caller", { REMOTE_AGENT_URL: `http://127.0.0.1:${remotePort}/a2a/worker` }),
  ]);

  const trace = callerContext();
  const response = await fetch(`${caller.url}/a2a/relay`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", traceparent: trace.traceparent },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "traced hop" }] } },
    }),
  });
  expect(JSON.stringify(await response.json())).toContain("echo: traced hop");

  const spans = await traceWith(receiver, trace.traceId, ["run relay", "a2a.call worker", "run worker"]);
  const call = spans.find((s) => s.name === "a2a.call worker")!;
  expect(call.kind).toBe(3); // SpanKind.CLIENT in OTLP
  expect(call.resource["service.instance.id"]).toBe("caller");
  expect(call.attributes).toMatchObject({ "a2a.agent.url": `http://127.0.0.1:${remotePort}/a2a/worker`, "a2a.task.state": "completed" });
  expect(ancestry(spans, call)).toContain("run relay");

  const remoteRun = spans.find((s) => s.name === "run worker")!;
  expect(remoteRun.resource["service.instance.id"]).toBe("remote");
  expect(call.attributes["a2a.task.id"]).toBe(remoteRun.attributes["agent_server.run.id"]);
  // The remote's HTTP request descends from the call's span: one trace across both servers.
  expect(ancestry(spans, remoteRun)).toEqual(expect.arrayContaining(["a2a.call worker", "run relay"]));
}, 90_000);
