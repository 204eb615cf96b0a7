import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "@agent-server/core";
import type { TestServer } from "../../test/support/index.js";
import { DEFAULT_MAX_BODY_BYTES } from "./body-limit.js";
import { MAX_REPORTED_ISSUES } from "./router.js";
import { httpDrivers, openServer, rawJson } from "../../test/support/http.js";

/** `depth` levels of objects and arrays, alternating (the outermost is level 1). */
function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = depth; level >= 1; level--) value = level % 2 ? { child: value } : [value];
  return value;
}

/**
 * Sends `body` on a connection of its own (node:http, no keep-alive pool: the server closes a connection
 * whose oversized body it did not read) and answers the status and JSON. `chunked` sends it in 64 KiB
 * chunks without Content-Length. A write error after the answer arrived (the server stopped reading) is
 * expected and ignored.
 */
function send(url: string, method: string, body: string, options: { chunked?: boolean } = {}): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const headers: Record<string, string | number> = { "content-type": "application/json" };
    if (!options.chunked) headers["content-length"] = Buffer.byteLength(body);
    const request = httpRequest(url, { method, headers, agent: false }, (response) => {
      answered = true;
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      response.on("error", reject);
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    if (!options.chunked) {
      request.end(body);
      return;
    }
    const bytes = Buffer.from(body);
    let offset = 0;
    const writeMore = () => {
      while (offset < bytes.length && !request.destroyed) {
        const chunk = bytes.subarray(offset, offset + 64 * 1024);
        offset += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", writeMore);
      }
      if (!request.destroyed) request.end();
    };
    writeMore();
  });
}

/** A JSON body of about `bytes` bytes: a store item whose value holds one long string. */
function storeItemOf(bytes: number): string {
  return JSON.stringify({ namespace: ["big"], key: "k", value: { text: "y".repeat(bytes) } });
}

describe("request body limit", () => {
  let standard: TestServer;
  let small: TestServer;
  const SMALL_LIMIT = 256 * 1024;
  beforeAll(async () => {
    const memory = httpDrivers.find((d) => d.name === "memory")!;
    standard = await openServer(memory);
    small = await openServer(memory, { app: { maxBodyBytes: SMALL_LIMIT } });
  });
  afterAll(async () => {
    await standard?.close();
    await small?.close();
  });

  it("answers 413 {detail} for a body over the default 25 MiB, with or without Content-Length", async () => {
    const oversize = storeItemOf(DEFAULT_MAX_BODY_BYTES + 1024);
    const detail = `Request body too large: the limit is ${DEFAULT_MAX_BODY_BYTES} bytes`;
    expect(await send(`${standard.url}/store/items`, "PUT", oversize)).toEqual({ status: 413, json: { detail } });
    expect(await send(`${standard.url}/store/items`, "PUT", oversize, { chunked: true })).toEqual({ status: 413, json: { detail } });
    expect(await send(`${standard.url}/threads`, "POST", oversize, { chunked: true })).toEqual({ status: 413, json: { detail } });
    expect(await standard.client.store.getItem(["big"], "k")).toBeNull();
  });

  it("applies a configured limit, and lets bodies within it through, chunked or not", async () => {
    const detail = `Request body too large: the limit is ${SMALL_LIMIT} bytes`;
    const within = storeItemOf(SMALL_LIMIT - 1024);
    expect((await send(`${small.url}/store/items`, "PUT", within)).status).toBe(204);
    expect((await send(`${small.url}/store/items`, "PUT", within, { chunked: true })).status).toBe(204);
    const over = storeItemOf(SMALL_LIMIT + 1);
    expect(await send(`${small.url}/store/items`, "PUT", over)).toEqual({ status: 413, json: { detail } });
    expect(await send(`${small.url}/runs/wait`, "POST", over, { chunked: true })).toEqual({ status: 413, json: { detail } });
    expect(await send(`${small.url}/internal/truncate`, "POST", over, { chunked: true })).toEqual({ status: 413, json: { detail } });
  });
});

describe.each(httpDrivers)("JSON depth and numeric bounds ($name)", (driver) => {
  let server: TestServer;
  let threadId: string;
  beforeAll(async () => {
    server = await openServer(driver);
    threadId = (await server.client.threads.create()).thread_id;
  });
  afterAll(() => server?.close());

  const tooDeep = nested(3000);

  it("answers 422 {detail} naming the limit for deeply nested bodies and query JSON, writing nothing", async () => {
    const assistant = await server.client.assistants.create({ graphId: "echo" });
    const requests: [string, string, unknown][] = [
      ["/threads", "POST", { metadata: { deep: tooDeep } }],
      ["/threads/search", "POST", { metadata: { deep: tooDeep } }],
      [`/threads/${threadId}/runs/wait`, "POST", { assistant_id: "echo", input: { deep: tooDeep } }],
      [`/threads/${threadId}/runs/stream`, "POST", { assistant_id: "echo", input: { deep: tooDeep } }],
      [`/threads/${threadId}/runs`, "POST", { assistant_id: "echo", input: { deep: tooDeep } }],
      ["/runs/wait", "POST", { assistant_id: "echo", input: { deep: tooDeep } }],
      ["/runs/batch", "POST", [{ assistant_id: "echo", input: { deep: tooDeep } }]],
      [`/threads/${threadId}/state`, "POST", { values: { deep: tooDeep } }],
      ["/assistants", "POST", { graph_id: "echo", config: { configurable: { deep: tooDeep } } }],
      [`/assistants/${assistant.assistant_id}`, "PATCH", { metadata: { deep: tooDeep } }],
      ["/store/items", "PUT", { namespace: ["n"], key: "k", value: { deep: tooDeep } }],
      ["/store/items/search", "POST", { filter: { deep: tooDeep } }],
      ["/runs/crons", "POST", { assistant_id: "echo", schedule: "0 0 1 1 *", input: { deep: tooDeep } }],
      // Query JSON too (a URL cannot hold 3,000 levels: just past the limit).
      [`/threads/${threadId}/runs?metadata=${encodeURIComponent(JSON.stringify({ deep: nested(MAX_JSON_DEPTH) }))}`, "GET", undefined],
    ];
    for (const [path, method, body] of requests) {
      const response = await rawJson(`${server.url}${path}`, method, body);
      expect(response.status, `${method} ${path.slice(0, 60)}`).toBe(422);
      expect(response.json, `${method} ${path.slice(0, 60)}`).toEqual({
        detail: `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`,
      });
    }
    expect(await server.client.runs.list(threadId)).toEqual([]);
    expect(await server.client.store.getItem(["n"], "k")).toBeNull();
  });

  it("runs a body nested exactly to the limit end to end", async () => {
    // The body itself is level 1, `input` level 2.
    const input = { deep: nested(MAX_JSON_DEPTH - 2) };
    const accepted = await rawJson(`${server.url}/threads/${threadId}/runs/wait`, "POST", { assistant_id: "echo", input });
    expect(accepted.status).toBe(200);
    const over = await rawJson(`${server.url}/threads/${threadId}/runs/wait`, "POST", {
      assistant_id: "echo",
      input: { deep: nested(MAX_JSON_DEPTH - 1) },
    });
    expect(over.status).toBe(422);
  });

  it("answers 422 for integers past what storage holds, never 500", async () => {
    const assistant = await server.client.assistants.create({ graphId: "echo" });
    const huge = Number.MAX_SAFE_INTEGER;
    const latest = await rawJson(`${server.url}/assistants/${assistant.assistant_id}/latest`, "POST", { version: huge });
    expect(latest.status).toBe(422);
    expect(latest.json).toMatchObject({ detail: expect.stringMatching(/^version/) });
    const namespaces = await rawJson(`${server.url}/store/namespaces`, "POST", { max_depth: huge });
    expect(namespaces.status).toBe(422);
    expect(namespaces.json).toMatchObject({ detail: expect.stringMatching(/^max_depth/) });
    // Offsets past every row are an empty page on every driver.
    for (const [path, method] of [
      ["/threads/search", "POST"],
      ["/assistants/search", "POST"],
      ["/runs/crons/search", "POST"],
      ["/store/items/search", "POST"],
      ["/store/namespaces", "POST"],
    ]) {
      const page = await rawJson(`${server.url}${path}`, method!, { offset: huge });
      expect(page.status, path).toBe(200);
    }
    expect((await rawJson(`${server.url}/threads/${threadId}/runs?offset=${huge}`, "GET")).json).toEqual([]);
  });

  it("answers a request with many invalid items with a bounded 422 that lists the first of them", async () => {
    const select = Array.from({ length: 1000 }, (_, i) => i);
    const response = await rawJson(`${server.url}/assistants/search`, "POST", { select });
    expect(response.status).toBe(422);
    const body = response.json as { detail: string; issues: unknown[]; issues_truncated: boolean };
    expect(body.detail).toMatch(/^select\.0/);
    expect(body.issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.issues_truncated).toBe(true);
    expect(JSON.stringify(body).length).toBeLessThan(16 * 1024);
    // A union's branches report nested issues (one per bad element of the array branch): bounded too.
    const interrupts = await rawJson(`${server.url}/runs/wait`, "POST", { assistant_id: "echo", interrupt_before: select });
    expect(interrupts.status).toBe(422);
    expect(JSON.stringify(interrupts.json).length).toBeLessThan(16 * 1024);
    expect(interrupts.json).toMatchObject({ detail: expect.stringMatching(/^interrupt_before/), issues_truncated: true });
  });

  it("answers GET /store/items without a namespace with 422 {detail}, not null", async () => {
    for (const query of ["?key=k", "?key=k&namespace="]) {
      const response = await rawJson(`${server.url}/store/items${query}`, "GET");
      expect(response.status, query).toBe(422);
      expect(response.json, query).toMatchObject({ detail: expect.stringContaining("namespace is required") });
    }
  });
});
