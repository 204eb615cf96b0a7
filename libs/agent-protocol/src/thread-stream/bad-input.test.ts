import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drivers } from "@agent-server/testing";
import type { TestServer } from "../../test/support/index.js";
import { openServer } from "../../test/support/http.js";
import { command, ok, RawSocket, readSse, says, socketAnswer, terminals } from "../../test/support/thread-stream.js";

/**
 * Hostile input on the thread streaming routes: every malformed envelope, param, filter and frame is a
 * 4xx or a protocol error naming what is wrong, never a 5xx, an `unknown_error` or a hung socket, and
 * the server (and the socket) goes on serving afterwards.
 */

const memory = drivers.find((d) => d.name === "memory")!;

/** `depth` levels of objects and arrays, alternating, as JSON text (built as text: no recursion). */
function deepJson(depth: number): string {
  let open = "";
  let close = "";
  for (let level = 1; level <= depth; level++) {
    open += level % 2 ? '{"child":' : "[";
    close = (level % 2 ? "}" : "]") + close;
  }
  return `${open}1${close}`;
}

describe("hostile input on the thread streaming routes", () => {
  let server: TestServer;
  let threadId: string;
  beforeAll(async () => {
    server = await openServer(memory);
    threadId = crypto.randomUUID();
    await ok(server.url, threadId, "run.start", { assistant_id: "echo", input: says("seed") });
    await readSse(server.url, threadId, { channels: ["lifecycle"] }, terminals(1));
  });
  afterAll(() => server.close());

  it("answers malformed command envelopes 422", async () => {
    for (const envelope of [
      "not json",
      "[]",
      "null",
      "42",
      {},
      { method: "state.get" },
      { id: -1, method: "state.get" },
      { id: 1.5, method: "state.get" },
      { id: "1", method: "state.get" },
      { id: 2 ** 53, method: "state.get" },
      { id: 1 },
      { id: 1, method: 7 },
      { id: 1, method: "x".repeat(201) },
      { id: 1, method: "state.get", params: [] },
      { id: 1, method: "state.get", params: "keys" },
      { id: 1, method: "state.get", params: null },
    ]) {
      const reply = await command(server.url, threadId, "", undefined, { envelope });
      expect(reply.status, JSON.stringify(envelope)).toBe(422);
    }
    const badPath = await command(server.url, "not-a-uuid", "state.get", {});
    expect(badPath.status).toBe(422);
  });

  it("refuses params of the wrong types with invalid_argument naming the field", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["run.start", { assistant_id: 5, input: {} }, "params.assistant_id"],
      ["run.start", { assistant_id: "echo", multitask_strategy: "explode" }, "params.multitask_strategy"],
      ["run.start", { assistant_id: "echo", config: "yes" }, "params.config"],
      ["state.get", { keys: "messages" }, "params.keys"],
      ["state.get", { namespace: [1] }, "params.namespace"],
      ["state.listCheckpoints", { limit: "ten" }, "params.limit"],
      ["state.listCheckpoints", { limit: 0 }, "params.limit"],
      ["state.fork", { checkpoint_id: {} }, "params.checkpoint_id"],
      ["input.respond", { namespace: [], interrupt_id: 3, response: 1 }, "interrupt_id"],
      ["input.inject", { namespace: [], message: { role: "admin", content: "x" } }, "params.message.role"],
      ["subscription.subscribe", { channels: "values" }, "params.channels"],
      ["subscription.subscribe", { channels: ["values"], depth: -1 }, "params.depth"],
      ["subscription.unsubscribe", { subscription_id: 1 }, "params.subscription_id"],
      ["subscription.reconnect", { subscriptions: "all" }, "params.subscriptions"],
      ["agent.getTree", { run_id: 12 }, "params.run_id"],
    ];
    for (const [method, params, field] of cases) {
      const reply = await command(server.url, threadId, method, params);
      expect(reply.status, `${method} ${JSON.stringify(params)}`).toBe(200);
      expect(reply.body, `${method} ${JSON.stringify(params)}`).toMatchObject({ type: "error", error: "invalid_argument" });
      expect(reply.body.message, `${method} ${JSON.stringify(params)}`).toContain(field);
    }
  });

  it("refuses a run.start input nested 5,000 levels deep without a 5xx or unknown_error, and creates no run", async () => {
    const before = await server.storage.runs.search({ thread_id: threadId, limit: 100 });
    const id = 77;
    const body = `{"id":${id},"method":"run.start","params":{"assistant_id":"echo","input":${deepJson(5000)}}}`;
    const reply = await command(server.url, threadId, "", undefined, { envelope: body });
    expect(reply.status).toBeLessThan(500);
    if (reply.status === 200) expect(reply.body).toMatchObject({ type: "error", error: "invalid_argument" });
    else expect(reply.status).toBe(422);
    expect(await server.storage.runs.search({ thread_id: threadId, limit: 100 })).toHaveLength(before.length);
    expect((await command(server.url, threadId, "state.get", {})).body.type).toBe("success");
  });

  it("answers bad stream requests 422: channels, namespaces, depth, since, unknown fields", async () => {
    const huge = Array.from({ length: 100_000 }, (_, i) => [`ns${i}`]);
    const long = [Array.from({ length: 10_000 }, () => "segment")];
    for (const body of [
      "not json",
      {},
      { channels: [] },
      { channels: "values" },
      { channels: ["bogus"] },
      { channels: ["custom:"] },
      { channels: Array.from({ length: 65 }, () => "values") },
      { channels: ["values"], namespaces: huge },
      { channels: ["values"], namespaces: long },
      { channels: ["values"], namespaces: [["x".repeat(10_000_000)]] },
      { channels: ["values"], namespaces: "root" },
      { channels: ["values"], depth: -1 },
      { channels: ["values"], depth: 1e9 },
      { channels: ["values"], since: -1 },
      { channels: ["values"], since: 1e300 },
      { channels: ["values"], since: "x" },
      { channels: ["values"], since: 1.5 },
      { channels: ["values"], extra: true },
    ]) {
      const response = await readSse(server.url, threadId, body, () => true);
      const label = JSON.stringify(body).slice(0, 100);
      expect(response.status, label).toBe(422);
      expect(response.events, label).toEqual([]);
    }
  });

  it("refuses bad subscription filters over HTTP commands with invalid_argument", async () => {
    for (const params of [
      { channels: ["bogus"] },
      { channels: [] },
      { channels: ["values"], namespaces: Array.from({ length: 100_000 }, () => ["ns"]) },
      { channels: ["values"], namespaces: [Array.from({ length: 10_000 }, () => "segment")] },
    ]) {
      const reply = await command(server.url, threadId, "subscription.subscribe", params);
      expect([reply.status, reply.body.type, reply.body.error], JSON.stringify(params).slice(0, 80)).toEqual([
        200,
        "error",
        "invalid_argument",
      ]);
    }
  });

  it("answers bad WebSocket frames with an error frame (id null when unknown) and keeps the socket usable", async () => {
    const socket = await RawSocket.open(server.url, threadId);
    try {
      let from = socket.frames.length;
      for (const frame of [
        "not json",
        Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x01]),
        "[]",
        "null",
        '{"method":"state.get"}',
        '{"id":-3,"method":"state.get"}',
      ]) {
        socket.send(frame);
        const error = await socket.waitFor((f) => f.type === "error", from);
        expect(error, String(frame)).toMatchObject({ type: "error", id: null, error: "invalid_argument" });
        from = socket.frames.indexOf(error) + 1;
      }
      socket.send({ id: 5, method: "state.get", params: [] });
      expect(await socket.waitFor((f) => f.id === 5)).toMatchObject({ type: "error", error: "invalid_argument" });
      expect(await socket.command("no.such.thing", {})).toMatchObject({ type: "error", error: "unknown_command" });
      expect(await socket.command("state.get", { keys: 3 })).toMatchObject({ type: "error", error: "invalid_argument" });
      expect(await socket.command("state.get", {})).toMatchObject({ type: "success" });
      expect(socket.closed).toBe(false);
    } finally {
      await socket.close();
    }
  });

  it("refuses a WebSocket run.start nested 5,000 levels deep, creates no run, and keeps the socket usable", async () => {
    const socket = await RawSocket.open(server.url, threadId);
    try {
      const before = await server.storage.runs.search({ thread_id: threadId, limit: 100 });
      socket.send(`{"id":9,"method":"run.start","params":{"assistant_id":"echo","input":${deepJson(5000)}}}`);
      const reply = await socket.waitFor((f) => f.id === 9 || (f.type === "error" && f.id === null));
      expect(reply).toMatchObject({ type: "error", error: "invalid_argument" });
      expect(await server.storage.runs.search({ thread_id: threadId, limit: 100 })).toHaveLength(before.length);
      expect(await socket.command("state.get", {})).toMatchObject({ type: "success" });
    } finally {
      await socket.close();
    }
  });

  it("answers a GET on the WebSocket path without an upgrade 426, and a bad thread id 422 (4422 on an upgrade)", async () => {
    const plain = await fetch(`${server.url}/threads/${threadId}/stream/events`);
    expect(plain.status).toBe(426);
    const badId = await fetch(`${server.url}/threads/not-a-uuid/stream/events`, { method: "POST", body: "{}" });
    expect(badId.status).toBe(422);
    const badGet = await fetch(`${server.url}/threads/not-a-uuid/stream/events`);
    expect(badGet.status).toBe(422);
    expect(await socketAnswer(server.url, "not-a-uuid")).toMatchObject({
      status: 101,
      code: 4422,
      reason: expect.stringMatching(/^thread_id: /),
    });
    // A thread id the SDK percent-encodes (a UUID is left as it is) upgrades and stays open.
    expect(await socketAnswer(server.url, encodeURIComponent(threadId))).toEqual({ status: 101, open: true });
  });
});
