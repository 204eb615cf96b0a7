import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";

describe("error shape", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(createMemoryStorage());
  });
  afterAll(() => server.close());

  it("answers a malformed JSON body with 422 and a detail, never 400 or 500", async () => {
    for (const path of ["/threads", "/assistants/search", "/runs/wait"]) {
      const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
      expect(response.status, path).toBe(422);
      expect(await response.json()).toMatchObject({ detail: expect.stringContaining("JSON") });
    }
  });
});

describe("unexpected failures", () => {
  let server: TestServer;
  const logged: unknown[] = [];
  let restoreConsole: () => void;
  beforeAll(async () => {
    // A driver that fails the way real ones do on a bug or bad data: a TypeError, and a JSON.parse of a
    // stored row (whose message quotes the row).
    const storage = createMemoryStorage();
    storage.threads.get = async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'password') at /srv/app/secret-module.ts:12");
    };
    storage.threads.search = async () => JSON.parse('{"api_key": sk-live-secret}') as never;
    server = await startTestServer(storage);
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(...args);
    restoreConsole = () => (console.error = original);
  });
  afterAll(async () => {
    restoreConsole();
    await server.close();
  });

  it("answers 500 with a generic detail and logs the real error, echoing none of its text", async () => {
    for (const [path, method, body, leaked] of [
      [`/threads/${crypto.randomUUID()}`, "GET", undefined, "password"],
      ["/threads/search", "POST", "{}", "sk-live"],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: body ? { "content-type": "application/json" } : {},
        body,
      });
      const text = await response.text();
      expect(response.status, path).toBe(500);
      expect(JSON.parse(text), path).toEqual({ detail: "Internal server error" });
      expect(text).not.toContain(leaked);
      expect(
        logged.some((entry) => entry instanceof Error && entry.message.includes(leaked)),
        path,
      ).toBe(true);
    }
  });

  it("keeps the detail of 4xx answers", async () => {
    const response = await fetch(`${server.url}/threads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"metadata": 5}',
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/^metadata/);
  });
});

describe("storage faults", () => {
  let server: TestServer;
  let restoreConsole: () => void;
  beforeAll(async () => {
    // What the drivers throw when their database is away or its disk is full.
    const storage = createMemoryStorage();
    storage.threads.get = async () => {
      throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    };
    storage.threads.create = async () => {
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    server = await startTestServer(storage);
    const original = console.error;
    console.error = () => undefined;
    restoreConsole = () => (console.error = original);
  });
  afterAll(async () => {
    restoreConsole();
    await server.close();
  });

  it("answers an unreachable database with 503, a detail naming it and a Retry-After", async () => {
    const response = await fetch(`${server.url}/threads/${crypto.randomUUID()}`);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toEqual({
      detail: "Storage unavailable: PostgreSQL cannot be reached (57P01); the request was not completed, try again later",
    });
  });

  it("answers a full disk with 507, and the SDK's error carries the detail", async () => {
    const response = await fetch(`${server.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(507);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await response.json()) as { detail: string }).detail).toContain("SQLite is out of disk space (SQLITE_FULL)");
    await expect(server.client.threads.create()).rejects.toThrow(/out of disk space/);
  });
});
