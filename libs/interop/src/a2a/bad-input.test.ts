import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, type A2ALogger } from "../index.js";

/**
 * Hostile input over real HTTP on SQLite, in the three bindings (JSON-RPC v1.0 and v0.3 at
 * /a2a/{assistant_id}, HTTP+JSON under it): shapes the SDK's decoders choke on are invalid params
 * (-32602 / 400) with nothing written; unexpected errors are "Internal error" without their text, and
 * logged; ListTasks validates its parameters.
 */
let server: TestServer;
let storage: Storage;
let dispose: () => Promise<void>;
let base: string;
const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
const logger: A2ALogger = { error: (fields, message) => logged.push({ fields, message }) };
/** While set, `runs.get`, `runs.getTask` and `runs.searchTaskRoots` fail as a broken database would. */
let brokenStorage = false;

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "sqlite")!.open();
  dispose = opened.dispose;
  storage = breakable(opened.storage);
  server = await startTestServer(storage, { app: { extraRoutes: [(deps) => a2aRoutes(deps, { logger })] } });
  base = `${server.url.replace(/\/$/, "")}/a2a/echo`;
});

afterAll(async () => {
  await server?.close();
  await dispose?.();
});

function breakable(inner: Storage): Storage {
  const runs = new Proxy(inner.runs, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if ((property === "get" || property === "getTask" || property === "searchTaskRoots") && typeof value === "function") {
        return (...args: unknown[]) => {
          if (brokenStorage) throw new Error("SQLITE_CORRUPT: secret table layout at /var/lib/agent.sqlite");
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value;
    },
  });
  return new Proxy(inner, { get: (target, property, receiver) => (property === "runs" ? runs : Reflect.get(target, property, receiver)) });
}

interface Answer {
  status: number;
  /** The JSON body, or the first SSE event's data. */
  body: any;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const data = /^data: (.*)$/m.exec(text)?.[1];
    return { status: response.status, body: data ? JSON.parse(data) : text };
  }
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function rpc(method: string, params: unknown, version: "1.0" | "0.3" = "1.0"): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json", ...(version === "1.0" ? { "A2A-Version": "1.0" } : {}) };
  return answer(await fetch(base, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }) }));
}

async function rest(method: string, path: string, body?: unknown): Promise<Answer> {
  const headers = { "content-type": "application/json", "A2A-Version": "1.0" };
  return answer(await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }));
}

const message = (extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: "ROLE_USER",
  parts: [{ text: "hi" }],
  ...extra,
});
const legacyMessage = (extra: Record<string, unknown> = {}) => ({
  kind: "message",
  messageId: crypto.randomUUID(),
  role: "user",
  parts: [{ kind: "text", text: "hi" }],
  ...extra,
});

async function counts(): Promise<{ threads: number; runs: number }> {
  return { threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 100_000 })).length };
}

function expectInvalidParams(result: Answer): void {
  if (result.body?.jsonrpc) {
    expect(result.body.error?.code, JSON.stringify(result.body)).toBe(-32602);
  } else {
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(result.body.error.status).toBe("INVALID_ARGUMENT");
  }
  expect(JSON.stringify(result.body)).not.toMatch(/Cannot read properties|TypeError|of null/);
}

describe("A2A bad input (SQLite, over HTTP)", () => {
  it("null parts and null push configs: invalid params in every binding, nothing written", async () => {
    const before = await counts();
    const cases: Array<[string, Promise<Answer>]> = [
      ["v1.0 SendMessage parts [null]", rpc("SendMessage", { message: message({ parts: [null] }) })],
      ["v1.0 SendStreamingMessage parts [null]", rpc("SendStreamingMessage", { message: message({ parts: [null] }) })],
      ["v1.0 SendMessage raw part not base64", rpc("SendMessage", { message: message({ parts: [{ raw: 5 }] }) })],
      // (params: null itself is no JSON-RPC request on v1.0: -32600, transports/json-rpc-envelope.test.ts.)
      [
        "v1.0 CreateTaskPushNotificationConfig null fields",
        rpc("CreateTaskPushNotificationConfig", { taskId: null, url: null, token: null }),
      ],
      ["v0.3 message/send parts [null]", rpc("message/send", { message: legacyMessage({ parts: [null] }) }, "0.3")],
      ["v0.3 message/send file null", rpc("message/send", { message: legacyMessage({ parts: [{ kind: "file", file: null }] }) }, "0.3")],
      [
        "v0.3 pushNotificationConfig/set null",
        rpc("tasks/pushNotificationConfig/set", { taskId: "t", pushNotificationConfig: null }, "0.3"),
      ],
      [
        "v0.3 message/send push config null fields",
        rpc("message/send", { message: legacyMessage(), configuration: { pushNotificationConfig: { url: null, token: 5 } } }, "0.3"),
      ],
      ["HTTP+JSON message:send parts [null]", rest("POST", "/message:send", { message: message({ parts: [null] }) })],
      ["HTTP+JSON message:stream parts [null]", rest("POST", "/message:stream", { message: message({ parts: [null] }) })],
      ["HTTP+JSON push config null", rest("POST", "/tasks/t/pushNotificationConfigs", null)],
    ];
    for (const [name, pending] of cases) {
      const result = await pending;
      expect(result.status, name).toBeLessThan(500);
      expectInvalidParams(result);
    }
    expect(await counts()).toEqual(before);
  });

  it("wrong types in message fields (the v0.3 translators pass them through): invalid params, nothing written", async () => {
    const before = await counts();
    const legacy: Array<Record<string, unknown>> = [
      { taskId: {} },
      { contextId: 5 },
      { messageId: ["x"] },
      { metadata: [1, 2] },
      { parts: [{ kind: "text", text: 5 }] },
      { parts: [{ kind: "text", text: "x", metadata: "m" }] },
      { parts: [{ kind: "file", file: { uri: 5 } }] },
      { referenceTaskIds: [{}] },
    ];
    for (const extra of legacy) expectInvalidParams(await rpc("message/send", { message: legacyMessage(extra) }, "0.3"));
    expectInvalidParams(await rpc("message/send", { message: legacyMessage(), configuration: { historyLength: "all" } }, "0.3"));
    expectInvalidParams(
      await rpc("message/send", { message: legacyMessage(), configuration: { blocking: true, historyLength: -1 } }, "0.3"),
    );
    for (const method of ["tasks/get", "tasks/cancel", "tasks/pushNotificationConfig/list"]) {
      expectInvalidParams(await rpc(method, { id: {} }, "0.3"));
      expectInvalidParams(await rpc(method, { id: 42 }, "0.3"));
    }
    expectInvalidParams(await rpc("tasks/pushNotificationConfig/get", { id: "t", pushNotificationConfigId: {} }, "0.3"));
    // v1.0: an unknown role, an agent's role, no parts, a part without content, a huge id.
    for (const extra of [{ role: "ROLE_AGENT" }, { role: "bogus" }, { parts: [] }, { parts: [{}] }, { messageId: "m".repeat(10_000) }]) {
      expectInvalidParams(await rpc("SendMessage", { message: message(extra) }));
      expectInvalidParams(await rest("POST", "/message:send", { message: message(extra) }));
    }
    expectInvalidParams(await rest("POST", "/message:send", [1, 2]));
    expectInvalidParams(await rest("GET", "/tasks/%zz"));
    expect(await counts()).toEqual(before);
  });

  it("property: any JSON value in any field of any method never answers -32603 or 5xx", async () => {
    const task = (await rpc("SendMessage", { message: message() })).body.result.task as { id: string; contextId: string };
    /** Valid params per method, and where a fuzzed value goes. */
    const shapes: Array<{ send: (params: Record<string, any>) => Promise<Answer>; params: () => Record<string, any> }> = [
      {
        send: (p) => rpc("SendMessage", p),
        params: () => ({ message: message({ contextId: task.contextId }), configuration: { returnImmediately: true } }),
      },
      { send: (p) => rpc("SendStreamingMessage", p), params: () => ({ message: message(), configuration: {} }) },
      { send: (p) => rpc("GetTask", p), params: () => ({ id: task.id, historyLength: 1 }) },
      { send: (p) => rpc("CancelTask", p), params: () => ({ id: task.id, metadata: {} }) },
      {
        send: (p) => rpc("ListTasks", p),
        params: () => ({ contextId: task.contextId, status: "TASK_STATE_COMPLETED", pageSize: 5, pageToken: "", historyLength: 0 }),
      },
      { send: (p) => rpc("SubscribeToTask", p), params: () => ({ id: task.id }) },
      {
        send: (p) => rpc("CreateTaskPushNotificationConfig", p),
        params: () => ({
          taskId: task.id,
          url: "http://127.0.0.1:9/hook",
          token: "t",
          authentication: { scheme: "Bearer", credentials: "c" },
        }),
      },
      { send: (p) => rpc("GetTaskPushNotificationConfig", p), params: () => ({ taskId: task.id, id: "x" }) },
      { send: (p) => rpc("ListTaskPushNotificationConfigs", p), params: () => ({ taskId: task.id, pageSize: 1, pageToken: "" }) },
      { send: (p) => rpc("DeleteTaskPushNotificationConfig", p), params: () => ({ taskId: task.id, id: "x" }) },
      {
        send: (p) => rpc("message/send", p, "0.3"),
        params: () => ({ message: legacyMessage({ contextId: task.contextId }), configuration: { blocking: false } }),
      },
      { send: (p) => rpc("message/stream", p, "0.3"), params: () => ({ message: legacyMessage(), metadata: {} }) },
      { send: (p) => rpc("tasks/get", p, "0.3"), params: () => ({ id: task.id, historyLength: 2 }) },
      { send: (p) => rpc("tasks/cancel", p, "0.3"), params: () => ({ id: task.id }) },
      { send: (p) => rpc("tasks/resubscribe", p, "0.3"), params: () => ({ id: task.id }) },
      {
        send: (p) => rpc("tasks/pushNotificationConfig/set", p, "0.3"),
        params: () => ({
          taskId: task.id,
          pushNotificationConfig: { url: "http://127.0.0.1:9/hook", authentication: { schemes: ["Bearer"] } },
        }),
      },
      { send: (p) => rpc("tasks/pushNotificationConfig/get", p, "0.3"), params: () => ({ id: task.id, pushNotificationConfigId: "x" }) },
      { send: (p) => rest("POST", "/message:send", p), params: () => ({ message: message(), configuration: { returnImmediately: true } }) },
      { send: (p) => rest("POST", "/message:stream", p), params: () => ({ message: message() }) },
      {
        send: (p) => rest("POST", `/tasks/${task.id}/pushNotificationConfigs`, p),
        params: () => ({ url: "http://127.0.0.1:9/hook", id: "c" }),
      },
    ];
    /** Every path to a field of `value` (objects and arrays), the root excluded. */
    const paths = (value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> =>
      typeof value === "object" && value !== null
        ? Object.entries(value).flatMap(([key, child]) => {
            const path = [...prefix, Array.isArray(value) ? Number(key) : key];
            return [path, ...paths(child, path)];
          })
        : [];
    const hostile = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(null, "", -1, 1e308, "UNRECOGNIZED", [], {}, [null], "x".repeat(5000)),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(shapes.length - 1), fc.nat(), hostile, async (which, pick, value) => {
        const shape = shapes[which]!;
        const params = shape.params();
        const all = paths(params);
        const path = all[pick % all.length]!;
        let at: any = params;
        for (const key of path.slice(0, -1)) at = at[key];
        at[path.at(-1)!] = value;
        const result = await shape.send(params);
        const code = result.body?.error?.code;
        expect(result.status, `${JSON.stringify(params)} -> ${JSON.stringify(result.body)}`).toBeLessThan(500);
        expect(code, `${JSON.stringify(params)} -> ${JSON.stringify(result.body)}`).not.toBe(-32603);
      }),
      { numRuns: 150 },
    );
    expect(logged).toEqual([]);
  });

  it("an unexpected error answers 'Internal error' without its text, and is logged with it", async () => {
    const task = (await rpc("SendMessage", { message: message() })).body.result.task as { id: string };
    logged.length = 0;
    brokenStorage = true;
    let answers: Answer[];
    try {
      answers = [
        await rpc("GetTask", { id: task.id }),
        await rpc("tasks/get", { id: task.id }, "0.3"),
        await rpc("ListTasks", {}),
        await rest("GET", `/tasks/${task.id}`),
        await rest("GET", "/tasks"),
        await rpc("tasks/resubscribe", { id: task.id }, "0.3"),
      ];
    } finally {
      brokenStorage = false;
    }
    for (const result of answers) {
      expect(JSON.stringify(result.body)).not.toContain("SQLITE_CORRUPT");
      if (result.body.jsonrpc) expect(result.body.error).toEqual({ code: -32603, message: "Internal error" });
      else
        expect(result).toEqual({ status: 500, body: { error: { code: 500, status: "INTERNAL", message: "Internal error", details: [] } } });
    }
    expect(logged).toHaveLength(answers.length);
    for (const entry of logged) expect(String((entry.fields.err as Error).message)).toContain("SQLITE_CORRUPT");
    expect(logged.map((e) => e.fields.binding)).toEqual(["JSONRPC", "JSONRPC", "JSONRPC", "HTTP+JSON", "HTTP+JSON", "JSONRPC"]);
  });

  it("ListTasks validates status, statusTimestampAfter, pageSize, pageToken and historyLength in both bindings", async () => {
    const task = (await rpc("SendMessage", { message: message() })).body.result.task as {
      id: string;
      contextId: string;
      status: { timestamp: string };
    };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ status: "TASK_STATE_DONE" }, "status=TASK_STATE_DONE"],
      [{ status: 42 }, "status=42"],
      [{ statusTimestampAfter: "yesterday" }, "statusTimestampAfter=yesterday"],
      [{ statusTimestampAfter: "2024-13-45T99:00:00Z" }, "statusTimestampAfter=2024-13-45T99:00:00Z"],
      [{ pageSize: 0 }, "pageSize=0"],
      [{ pageSize: 101 }, "pageSize=101"],
      [{ pageSize: 2.5 }, "pageSize=2.5"],
      [{ pageToken: "garbage" }, "pageToken=garbage"],
      [{ pageToken: "-1" }, "pageToken=-1"],
      [{ historyLength: -1 }, "historyLength=-1"],
    ];
    for (const [params, query] of bad) {
      expectInvalidParams(await rpc("ListTasks", params));
      expectInvalidParams(await rest("GET", `/tasks?${query}`));
    }
    // Unset filters as the SDK 1.3.0 client sends them, and the spec's bounds, are accepted.
    for (const params of [{ status: "UNRECOGNIZED" }, { status: "TASK_STATE_UNSPECIFIED" }, { pageSize: 1 }, { pageSize: 100 }]) {
      expect((await rpc("ListTasks", { contextId: task.contextId, ...params })).body.result.tasks.length).toBeGreaterThan(0);
    }
    expect((await rpc("ListTasks", { contextId: task.contextId })).body.result.pageSize).toBe(50);
    expect((await rest("GET", `/tasks?contextId=${task.contextId}&status=UNRECOGNIZED`)).body.tasks.map((t: any) => t.id)).toEqual([
      task.id,
    ]);
    // statusTimestampAfter keeps tasks whose status timestamp is at or after it.
    const at = task.status.timestamp;
    const later = new Date(Date.parse(at) + 1000).toISOString();
    expect(
      (await rpc("ListTasks", { contextId: task.contextId, statusTimestampAfter: at })).body.result.tasks.map((t: any) => t.id),
    ).toEqual([task.id]);
    expect((await rpc("ListTasks", { contextId: task.contextId, statusTimestampAfter: later })).body.result.tasks).toEqual([]);
    expect((await rest("GET", `/tasks?contextId=${task.contextId}&statusTimestampAfter=${encodeURIComponent(later)}`)).body.tasks).toEqual(
      [],
    );
  });
});
