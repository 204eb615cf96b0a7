import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { requestAuthenticator } from "@agent-server/agent-protocol";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { MAX_JSON_DEPTH, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, startA2AGrpcServer, type A2ALogger, type RunningA2AGrpcServer } from "../index.js";
import { deepSendMessageRequest, rawGrpcCall, type DeepPlace } from "../../test/support/grpc-raw.js";
import { ownerAuth } from "../../test/support/owner-auth.js";

/**
 * Deep input on every A2A binding, behind the project's custom auth, on SQLite: a data part, message
 * metadata or request body nested 5,000 levels (and just past `MAX_JSON_DEPTH`) is the protocol's invalid
 * params (-32602 on JSON-RPC v1.0 and v0.3, HTTP 400 INVALID_ARGUMENT on HTTP+JSON, gRPC INVALID_ARGUMENT),
 * never an internal error, and writes nothing; bytes that are not a protobuf message are INVALID_ARGUMENT
 * too. Input at the limit still runs.
 */
const INVALID_ARGUMENT = 3;
const UNAUTHENTICATED = 16;
const TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`;

let server: TestServer;
let grpc: RunningA2AGrpcServer;
let storage: Storage;
let dispose: () => Promise<void>;
let base: string;
const logged: string[] = [];
const logger: A2ALogger = { error: (_fields, message) => logged.push(message) };

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "sqlite")!.open();
  dispose = opened.dispose;
  storage = opened.storage;
  server = await startTestServer(storage, {
    app: { auth: ownerAuth, extraRoutes: [(deps) => a2aRoutes(deps, { logger, grpc: () => grpc })] },
  });
  base = `${server.url.replace(/\/$/, "")}/a2a/echo`;
  grpc = await startA2AGrpcServer(
    { engine: server.engine, storage },
    { host: "127.0.0.1", port: 0, logger, defaultAssistant: "echo", authenticate: requestAuthenticator(ownerAuth) },
  );
});

beforeEach(() => {
  logged.length = 0;
});

afterAll(async () => {
  await grpc?.close();
  await server?.close();
  await dispose?.();
});

/** `{"a":{"a":...1}}` nested `depth` levels, as JSON text (JSON.stringify could not build it). */
const deepJson = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** The JSON text of a v1.0 or v0.3 send whose deep value sits at `place`. */
function sendBody(version: "1.0" | "0.3", place: DeepPlace, deep: string): string {
  const v1 = version === "1.0";
  const text = v1 ? `{"text":"deep"}` : `{"kind":"text","text":"deep"}`;
  const data = v1 ? `{"data":${deep}}` : `{"kind":"data","data":${deep}}`;
  const parts = place === "data part" ? `[${text},${data}]` : `[${text}]`;
  const head = v1 ? `"role":"ROLE_USER"` : `"kind":"message","role":"user"`;
  const metadata = place === "message metadata" ? `,"metadata":${deep}` : "";
  const message = `{${head},"messageId":"${crypto.randomUUID()}","parts":${parts}${metadata}}`;
  return `{"message":${message}${place === "request metadata" ? `,"metadata":${deep}` : ""}}`;
}

async function post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer alice", ...headers },
    body,
  });
  return { status: response.status, body: await response.json() };
}

function rpc(version: "1.0" | "0.3", method: string, params: string) {
  return post("", `{"jsonrpc":"2.0","id":7,"method":"${method}","params":${params}}`, version === "1.0" ? { "A2A-Version": "1.0" } : {});
}

async function rowCounts(): Promise<{ threads: number; runs: number }> {
  return { threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 100_000 })).length };
}

const PLACES: DeepPlace[] = ["data part", "message metadata", "request metadata"];

describe("A2A deep input (custom auth, SQLite)", () => {
  it.each([5_000, MAX_JSON_DEPTH + 1])("JSON-RPC v1.0 and v0.3, %i levels: -32602 on every place, nothing written", async (depth) => {
    const before = await rowCounts();
    for (const place of PLACES) {
      for (const [version, method] of [
        ["1.0", "SendMessage"],
        ["1.0", "SendStreamingMessage"],
        ["0.3", "message/send"],
        ["0.3", "message/stream"],
      ] as const) {
        const answer = await rpc(version, method, sendBody(version, place, deepJson(depth)));
        expect(answer.status, `${method} ${place}`).toBe(200);
        expect(answer.body.error, `${method} ${place}`).toMatchObject({ code: -32602, message: TOO_DEEP });
        expect(answer.body.id).toBe(7);
      }
    }
    // The whole params, and params of a method that takes no message.
    expect((await rpc("1.0", "GetTask", deepArray(depth))).body.error.code).toBe(-32602);
    expect((await rpc("0.3", "tasks/get", `{"id":"t","metadata":${deepJson(depth)}}`)).body.error.code).toBe(-32602);
    expect(await rowCounts()).toEqual(before);
    expect(logged).toEqual([]);
  });

  it.each([5_000, MAX_JSON_DEPTH + 1])("HTTP+JSON, %i levels: 400 INVALID_ARGUMENT, nothing written", async (depth) => {
    const before = await rowCounts();
    for (const path of ["/message:send", "/message:stream"]) {
      for (const place of PLACES) {
        const answer = await post(path, sendBody("1.0", place, deepJson(depth)), { "A2A-Version": "1.0" });
        expect(answer.status, `${path} ${place}`).toBe(400);
        expect(answer.body.error, `${path} ${place}`).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: TOO_DEEP });
      }
      expect((await post(path, deepArray(depth), { "A2A-Version": "1.0" })).status).toBe(400);
    }
    expect((await post("/tasks/t/pushNotificationConfigs", deepJson(depth), { "A2A-Version": "1.0" })).status).toBe(400);
    expect(await rowCounts()).toEqual(before);
    expect(logged).toEqual([]);
  });

  it.each([5_000, MAX_JSON_DEPTH + 1])("gRPC, %i levels: INVALID_ARGUMENT on every place, nothing written", async (depth) => {
    const before = await rowCounts();
    for (const method of ["SendMessage", "SendStreamingMessage"]) {
      const stream = method === "SendStreamingMessage";
      for (const [place, kind] of [...PLACES.map((p) => [p, "object"] as const), ["data part", "array"] as const]) {
        const bytes = deepSendMessageRequest(depth, place, kind);
        const answer = await rawGrpcCall(grpc.url, method, bytes, { authorization: "Bearer alice" }, { stream });
        expect(answer.code, `${method} ${place} ${kind}: ${answer.details}`).toBe(INVALID_ARGUMENT);
      }
    }
    expect(await rowCounts()).toEqual(before);
    expect(logged).toEqual([]);
  });

  it("gRPC: bytes that are no protobuf message are INVALID_ARGUMENT once the caller is authenticated", async () => {
    const garbage = Uint8Array.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2]); // a length far past the end
    for (const method of ["SendMessage", "GetTask", "CreateTaskPushNotificationConfig"]) {
      expect((await rawGrpcCall(grpc.url, method, garbage, { authorization: "Bearer alice" })).code, method).toBe(INVALID_ARGUMENT);
      expect((await rawGrpcCall(grpc.url, method, garbage)).code, method).toBe(UNAUTHENTICATED);
    }
    expect(logged).toEqual([]);
  });

  it("at the limit, every binding still runs the message", async () => {
    // The envelope and message add levels above a data part: this depth puts the body exactly at the limit.
    const depth = MAX_JSON_DEPTH - 6;
    const v1 = await rpc("1.0", "SendMessage", sendBody("1.0", "data part", deepJson(depth)));
    expect(v1.body.result?.task?.status?.state, JSON.stringify(v1.body).slice(0, 200)).toBe("TASK_STATE_COMPLETED");
    const rest = await post("/message:send", sendBody("1.0", "data part", deepJson(depth)), { "A2A-Version": "1.0" });
    expect(rest.status, JSON.stringify(rest.body).slice(0, 200)).toBe(200);
    const overGrpc = await rawGrpcCall(grpc.url, "SendMessage", deepSendMessageRequest(depth, "data part"), {
      authorization: "Bearer alice",
    });
    expect(overGrpc, overGrpc.details).toEqual({ code: 0, details: "" });
    expect(logged).toEqual([]);
  });
});
