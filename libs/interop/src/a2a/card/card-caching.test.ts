import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes } from "../../index.js";
import { AGENT_CARD_MAX_AGE_SECONDS } from "./card-caching.js";

/**
 * HTTP caching of agent cards (A2A v1.0 section 8.6.1) at both card URLs: Cache-Control with max-age, a
 * strong ETag that is the SHA-256 of the body, Last-Modified from the assistant's `updated_at`; a matching
 * If-None-Match (or, without it, an If-Modified-Since not before Last-Modified) is a 304 without a body.
 */
let server: TestServer;
let dispose: () => Promise<void>;
let base: string;

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  dispose = opened.dispose;
  server = await startTestServer(opened.storage, { app: { extraRoutes: [(deps) => a2aRoutes(deps, { defaultAssistant: "echo" })] } });
  base = server.url.replace(/\/$/, "");
});

afterAll(async () => {
  await server?.close();
  await dispose?.();
});

interface CardAnswer {
  status: number;
  body: string;
  etag: string | null;
  cacheControl: string | null;
  lastModified: string | null;
}

async function get(path: string, headers: Record<string, string> = {}): Promise<CardAnswer> {
  const response = await fetch(`${base}${path}`, { headers });
  return {
    status: response.status,
    body: await response.text(),
    etag: response.headers.get("etag"),
    cacheControl: response.headers.get("cache-control"),
    lastModified: response.headers.get("last-modified"),
  };
}

const sha256 = (text: string) => `"${createHash("sha256").update(text).digest("base64url")}"`;

describe.each([
  ["the per-assistant card", "/a2a/echo/.well-known/agent-card.json"],
  ["LangGraph's card URL", "/.well-known/agent-card.json?assistant_id=echo"],
  ["the domain-root card", "/.well-known/agent-card.json"],
])("%s", (_name, path) => {
  it("has Cache-Control max-age, a strong ETag of the body and Last-Modified", async () => {
    const card = await get(path);
    expect(card.status).toBe(200);
    expect(JSON.parse(card.body)).toMatchObject({ name: expect.any(String), supportedInterfaces: expect.any(Array) });
    expect(card.cacheControl).toBe(`max-age=${AGENT_CARD_MAX_AGE_SECONDS}`);
    expect(card.etag).toBe(sha256(card.body));
    expect(new Date(card.lastModified!).toUTCString()).toBe(card.lastModified);
    expect(Date.parse(card.lastModified!)).toBeLessThanOrEqual(Date.now());
    // Unchanged, the same card is served with the same validators.
    expect(await get(path)).toEqual(card);
  });

  it("answers 304 without a body to a matching If-None-Match, and the card to any other", async () => {
    const card = await get(path);
    for (const ifNoneMatch of [card.etag!, `W/${card.etag}`, `"other", ${card.etag}`, "*"]) {
      const again = await get(path, { "if-none-match": ifNoneMatch });
      expect(again).toEqual({ ...card, status: 304, body: "" });
    }
    expect(await get(path, { "if-none-match": '"other"' })).toEqual(card);
  });

  it("answers 304 to If-Modified-Since not before Last-Modified, unless an If-None-Match does not match", async () => {
    const card = await get(path);
    const modified = Date.parse(card.lastModified!);
    expect((await get(path, { "if-modified-since": card.lastModified! })).status).toBe(304);
    expect((await get(path, { "if-modified-since": new Date(modified + 60_000).toUTCString() })).status).toBe(304);
    expect((await get(path, { "if-modified-since": new Date(modified - 1000).toUTCString() })).status).toBe(200);
    expect((await get(path, { "if-modified-since": "not a date" })).status).toBe(200);
    expect((await get(path, { "if-none-match": '"other"', "if-modified-since": card.lastModified! })).status).toBe(200);
  });
});

describe("a card that changes", () => {
  it("gets a new ETag and its assistant's updated_at as Last-Modified; the old validators no longer match", async () => {
    const assistant = await server.client.assistants.create({ graphId: "echo", name: "cached" });
    const path = `/a2a/${assistant.assistant_id}/.well-known/agent-card.json`;
    const before = await get(path);
    expect(before.status).toBe(200);

    // HTTP dates have whole seconds: the update lands in a later second than the first Last-Modified.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const updated = await server.client.assistants.update(assistant.assistant_id, { metadata: { a2a: { description: "Revised" } } });
    const after = await get(path, { "if-none-match": before.etag!, "if-modified-since": before.lastModified! });
    expect(after.status).toBe(200);
    expect(JSON.parse(after.body).description).toBe("Revised");
    expect(after.etag).toBe(sha256(after.body));
    expect(after.etag).not.toBe(before.etag);
    expect(after.lastModified).toBe(new Date(Math.floor(Date.parse(updated.updated_at) / 1000) * 1000).toUTCString());
    expect((await get(path, { "if-modified-since": before.lastModified! })).status).toBe(200);
    expect((await get(path, { "if-none-match": after.etag! })).status).toBe(304);
  });

  it("a card that is not found has no caching headers", async () => {
    const missing = await get("/a2a/nobody/.well-known/agent-card.json");
    expect([missing.status, missing.etag, missing.cacheControl, missing.lastModified]).toEqual([404, null, null, null]);
  });
});
