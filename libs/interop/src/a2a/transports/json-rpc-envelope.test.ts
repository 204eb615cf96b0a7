import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCard, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { messageRequest, sendTask, textsOf } from "../../../test/support/a2a-clients.js";

/**
 * The JSON-RPC endpoint's envelope rules: a v1.0 body that is no JSON-RPC 2.0 request object is -32600
 * Invalid Request (as the v0.3 path already answered), params of the wrong structure for their method
 * stay -32602; and the endpoint with a trailing slash (`/a2a/echo/`, where a client joining a base URL
 * posts) is JSON-RPC too, through raw HTTP and the official client.
 */
let server: TestServer;
let dispose: () => Promise<void>;
let base: string;

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  dispose = opened.dispose;
  server = await startTestServer(opened.storage, { app: { extraRoutes: [a2aRoutes] } });
  base = server.url.replace(/\/$/, "");
});

afterAll(async () => {
  await server?.close();
  await dispose?.();
});

async function post(path: string, body: unknown, version?: "1.0"): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(version ? { "A2A-Version": version } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const sendParams = () => ({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] } });

describe("JSON-RPC v1.0 request envelope", () => {
  it.each<[string, unknown, string | number | null]>([
    ["without jsonrpc", { id: 1, method: "GetTask", params: { id: "t" } }, 1],
    ['with jsonrpc "1.0"', { jsonrpc: "1.0", id: 2, method: "GetTask", params: { id: "t" } }, 2],
    ["with a numeric method", { jsonrpc: "2.0", id: 3, method: 5, params: {} }, 3],
    ["without a method", { jsonrpc: "2.0", id: "four", params: {} }, "four"],
    ["with an empty method", { jsonrpc: "2.0", id: 5, method: "", params: {} }, 5],
    ["with string params", { jsonrpc: "2.0", id: 6, method: "GetTask", params: "t" }, 6],
    ["with null params", { jsonrpc: "2.0", id: 7, method: "CreateTaskPushNotificationConfig", params: null }, 7],
    ["with an object id", { jsonrpc: "2.0", id: { n: 8 }, method: "GetTask", params: { id: "t" } }, null],
    ["with a fractional id", { jsonrpc: "2.0", id: 9.5, method: "GetTask", params: { id: "t" } }, null],
    ["as a batch", [{ jsonrpc: "2.0", id: 10, method: "GetTask", params: { id: "t" } }], null],
    ["as a number", 11, null],
  ])("%s is -32600 Invalid Request", async (_name, body, id) => {
    const answer = await post("/a2a/echo", body, "1.0");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32600 } });
    expect(answer.body.error.message).toMatch(/^Invalid Request: /);
  });

  it("params of the wrong structure for the method stay -32602 Invalid params", async () => {
    expect((await post("/a2a/echo", { jsonrpc: "2.0", id: 1, method: "GetTask", params: ["t"] }, "1.0")).body.error.code).toBe(-32602);
    expect((await post("/a2a/echo", { jsonrpc: "2.0", id: 2, method: "SendMessage", params: {} }, "1.0")).body.error.code).toBe(-32602);
  });

  it("v0.3 (no A2A-Version) answers invalid envelopes -32600 as before", async () => {
    expect((await post("/a2a/echo", { id: 1, method: "tasks/get", params: { id: "t" } })).body.error.code).toBe(-32600);
    expect((await post("/a2a/echo", [1, 2])).body.error.code).toBe(-32600);
  });

  it("malformed JSON stays -32700", async () => {
    expect((await post("/a2a/echo", "{not json", "1.0")).body).toMatchObject({ id: null, error: { code: -32700 } });
  });
});

describe("JSON-RPC at the agent URL with a trailing slash", () => {
  it("a raw v1.0 and v0.3 request to /a2a/echo/ is answered as JSON-RPC", async () => {
    const v1 = await post("/a2a/echo/", { jsonrpc: "2.0", id: "a", method: "SendMessage", params: sendParams() }, "1.0");
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ jsonrpc: "2.0", id: "a", result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
    const legacy = await post("/a2a/echo/", {
      jsonrpc: "2.0",
      id: "b",
      method: "message/send",
      params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hi" }] } },
    });
    expect(legacy.body).toMatchObject({ jsonrpc: "2.0", id: "b", result: { kind: "task", status: { state: "completed" } } });
    // Invalid envelopes there too are JSON-RPC errors, not HTTP+JSON 404s.
    expect((await post("/a2a/echo/", { id: 1, method: "GetTask" }, "1.0")).body.error.code).toBe(-32600);
  });

  it("the official client whose JSONRPC interface URL ends in '/' sends, gets and streams", async () => {
    const json = (await (await fetch(`${base}/a2a/echo/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: Array<{ url: string }>;
    };
    for (const i of json.supportedInterfaces) i.url = `${i.url}/`;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory()],
        preferredTransports: ["JSONRPC"],
      }),
    );
    const client = await factory.createFromAgentCard(AgentCard.fromJSON(json));
    const task = await sendTask(client, [{ text: "slash" }]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textsOf(task.artifacts[0]!.parts)).toEqual(["echo: slash"]);
    expect(await client.getTask({ tenant: "", id: task.id })).toEqual(task);
    const states: string[] = [];
    for await (const event of client.sendMessageStream(messageRequest([{ text: "streamed" }]))) states.push(event.payload?.$case ?? "");
    expect(states).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
  });

  it("HTTP+JSON routes under the agent URL are unchanged; other methods at '/' are still not found", async () => {
    const sent = await fetch(`${base}/a2a/echo/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify(sendParams()),
    });
    expect(sent.status).toBe(200);
    expect((await fetch(`${base}/a2a/echo/`, { headers: { "A2A-Version": "1.0" } })).status).toBe(404);
  });
});
