import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { serverInfo } from "./server-info.js";

const langgraphVersion = (createRequire(import.meta.url)("@langchain/langgraph/package.json") as { version: string }).version;

describe("meta endpoints", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(createMemoryStorage());
  });
  afterAll(() => server.close());

  it("answers /ok, and /info with every field the official servers report", async () => {
    expect(await (await fetch(`${server.url}/ok`)).json()).toEqual({ ok: true });
    const info = (await (await fetch(`${server.url}/info`)).json()) as Record<string, unknown>;
    expect(info).toEqual({
      version: "test",
      langgraph_js_version: langgraphVersion,
      context: "js",
      flags: {
        assistants: true,
        crons: true,
        langsmith: expect.any(Boolean),
        langsmith_tracing_replicas: false,
        a2a: true,
        stream_namespaces: true,
        strict_resume: true,
      },
      host: { kind: "self-hosted", project_id: null, host_revision_id: null, revision_id: null, tenant_id: null },
    });
    expect(langgraphVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("flags langsmith only when LangChain would trace: an API key and a tracing variable set to true", () => {
    expect(serverInfo("v", {}).flags.langsmith).toBe(false);
    expect(serverInfo("v", { LANGSMITH_API_KEY: "k" }).flags.langsmith).toBe(false);
    expect(serverInfo("v", { LANGSMITH_TRACING: "true" }).flags.langsmith).toBe(false);
    expect(serverInfo("v", { LANGSMITH_API_KEY: "k", LANGSMITH_TRACING: "true" }).flags.langsmith).toBe(true);
    expect(serverInfo("v", { LANGCHAIN_API_KEY: "k", LANGCHAIN_TRACING_V2: "true" }).flags.langsmith).toBe(true);
    expect(serverInfo("v", { LANGSMITH_API_KEY: "k", LANGSMITH_TRACING: "false" }).flags.langsmith).toBe(false);
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
