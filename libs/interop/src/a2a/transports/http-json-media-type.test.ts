import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, RestTransportFactory } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { sendTask, textsOf } from "../../../test/support/a2a-clients.js";
import { responseMediaType } from "./media-type.js";

/**
 * The HTTP+JSON binding's media types (A2A v1.0.1 section 11.1): bodies sent as `application/a2a+json`
 * or `application/json` are read alike, any other Content-Type is ContentTypeNotSupported as HTTP 400;
 * answers are `application/a2a+json` unless the client's Accept prefers `application/json`.
 */
let server: TestServer;
let dispose: () => Promise<void>;
let agent: string;

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  dispose = opened.dispose;
  server = await startTestServer(opened.storage, { app: { extraRoutes: [a2aRoutes] } });
  agent = `${server.url.replace(/\/$/, "")}/a2a/echo`;
});

afterAll(async () => {
  await server?.close();
  await dispose?.();
});

const sendBody = (text: string) => JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } });

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const response = await fetch(`${agent}${path}`, { ...init, headers: { "A2A-Version": "1.0", ...init.headers } });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    vary: response.headers.get("vary"),
    body: JSON.parse(text),
  };
}

describe("HTTP+JSON media types", () => {
  it.each(["application/a2a+json", "application/a2a+json; charset=utf-8", "application/json", "application/json; charset=utf-8"])(
    "reads a message:send body sent as %s",
    async (contentType) => {
      const answer = await call("/message:send", { method: "POST", headers: { "content-type": contentType }, body: sendBody("typed") });
      expect(answer.status).toBe(200);
      expect(answer.body.task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(answer.body.task.artifacts[0].parts[0]).toMatchObject({ text: "echo: typed" });
    },
  );

  it("refuses another Content-Type as ContentTypeNotSupported, HTTP 400 (v1.0.1), in the A2A error shape", async () => {
    const answer = await call("/message:send", { method: "POST", headers: { "content-type": "text/plain" }, body: sendBody("plain") });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 400,
      status: "INVALID_ARGUMENT",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "CONTENT_TYPE_NOT_SUPPORTED", domain: "a2a-protocol.org" }],
    });
  });

  it.each<[string | undefined, string]>([
    [undefined, "application/a2a+json"],
    ["*/*", "application/a2a+json"],
    ["application/a2a+json", "application/a2a+json"],
    ["application/a2a+json, application/json", "application/a2a+json"],
    ["application/json, application/a2a+json", "application/a2a+json"],
    ["application/json", "application/json"],
    ["application/json, */*;q=0.8", "application/json"],
    ["application/json, */*", "application/json"],
    ["application/a2a+json;q=0.5, application/json", "application/json"],
    ["application/*", "application/a2a+json"],
    ["text/html", "application/a2a+json"],
  ])("Accept %s answers %s, on success and on error alike", async (accept, expected) => {
    const headers: Record<string, string> = accept ? { accept } : {};
    const sent = await call("/message:send", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: sendBody("a"),
    });
    expect([sent.status, sent.contentType, sent.vary]).toEqual([200, expected, "Accept"]);
    const got = await call(`/tasks/${sent.body.task.id}`, { headers });
    expect([got.status, got.contentType]).toEqual([200, expected]);
    const missing = await call("/tasks/00000000-0000-0000-0000-000000000000", { headers });
    expect([missing.status, missing.contentType]).toEqual([404, expected]);
    const unrouted = await call("/nowhere", { headers });
    expect([unrouted.status, unrouted.contentType]).toEqual([404, expected]);
  });

  it("streams stay text/event-stream whatever the Accept", async () => {
    const response = await fetch(`${agent}/message:stream`, {
      method: "POST",
      headers: { "A2A-Version": "1.0", "content-type": "application/a2a+json", accept: "application/json" },
      body: sendBody("stream"),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await response.text()).toMatch(/TASK_STATE_COMPLETED/);
  });

  it("the official client (RestTransport: Accept application/a2a+json, application/json) is answered in the A2A type", async () => {
    const seen: Array<string | null> = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith("agent-card.json")) seen.push(response.headers.get("content-type"));
      return response;
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new RestTransportFactory({ fetchImpl })],
        preferredTransports: ["HTTP+JSON"],
      }),
    );
    const client = await factory.createFromUrl(`${agent}/`);
    const task = await sendTask(client, [{ text: "sdk" }]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textsOf(task.artifacts[0]!.parts)).toEqual(["echo: sdk"]);
    expect(await client.getTask({ tenant: "", id: task.id })).toEqual(task);
    expect(seen).toEqual(["application/a2a+json", "application/a2a+json"]);
  });
});

describe("responseMediaType", () => {
  it("weighs quality first, then how specifically a range names the type, then prefers the A2A type", () => {
    expect(responseMediaType(null)).toBe("application/a2a+json");
    expect(responseMediaType("")).toBe("application/a2a+json");
    expect(responseMediaType("application/json;q=0.9, application/a2a+json;q=0.8")).toBe("application/json");
    expect(responseMediaType("application/a2a+json;q=0, application/json;q=0.1")).toBe("application/json");
    expect(responseMediaType("APPLICATION/JSON")).toBe("application/json");
    expect(responseMediaType("application/json;q=0")).toBe("application/a2a+json");
    expect(responseMediaType("application/json;q=abc, application/a2a+json")).toBe("application/a2a+json");
    expect(responseMediaType("garbage, application/json")).toBe("application/json");
  });
});
