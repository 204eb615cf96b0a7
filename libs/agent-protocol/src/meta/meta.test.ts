import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../testing/index.js";

describe("meta endpoints", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(createMemoryStorage());
  });
  afterAll(() => server.close());

  it("answers /ok and /info with the feature flags", async () => {
    expect(await (await fetch(`${server.url}/ok`)).json()).toEqual({ ok: true });
    const info = (await (await fetch(`${server.url}/info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ version: "test", flags: { crons: true, a2a: true } });
  });

  it("serves an OpenAPI document listing its routes, and a JSON 404 for unknown paths", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/ok", "/info"]));
    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ detail: expect.stringContaining("/nope") });
  });
});
