import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRPC_STATUS_CODE } from "@a2a-js/sdk/errors/grpc";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { a2aRoutes, type A2ALogger } from "../index.js";
import { clientAs, messageRequest } from "../../test/support/a2a-clients.js";
import { grpcFailure } from "./transports/grpc-dispatch.js";

/** What pg throws on a connection PostgreSQL terminated (a restart under load). */
const adminShutdown = () => Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
const DETAIL = "Storage unavailable: PostgreSQL cannot be reached (57P01); the request was not completed, try again later";

/**
 * The database goes away under an A2A request: every binding answers an error that names it (JSON-RPC
 * -32603 with the detail as its message, HTTP+JSON 503 with Retry-After, gRPC UNAVAILABLE), never
 * "Internal error" alone, and it is logged as a warning with its code, not as a bug.
 */
describe("A2A answers to a storage fault", () => {
  let server: TestServer;
  let base: string;
  let assistantsAway = false;
  const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const logger: A2ALogger = {
    error: (fields, message) => logged.push({ fields, message }),
    warn: (fields, message) => logged.push({ fields, message }),
  };

  beforeAll(async () => {
    const storage = createMemoryStorage();
    // A new context's thread is written with its run (createWithThread), or on its own by a driver without it.
    storage.threads.create = async () => {
      throw adminShutdown();
    };
    storage.runs.createWithThread = async () => {
      throw adminShutdown();
    };
    storage.runs.getTask = async () => {
      throw adminShutdown();
    };
    const getAssistant = storage.assistants.get.bind(storage.assistants);
    storage.assistants.get = async (id) => {
      if (assistantsAway) throw adminShutdown();
      return getAssistant(id);
    };
    server = await startTestServer(storage, { app: { extraRoutes: [(deps) => a2aRoutes(deps, { logger })] } });
    base = server.url.replace(/\/$/, "");
  });
  afterAll(() => server?.close());

  it("JSON-RPC: SendMessage fails with the detail as its message, through the official client", async () => {
    const client = await clientAs(base, "anyone", "JSONRPC");
    await expect(client.sendMessage(messageRequest([{ text: "hi" }]))).rejects.toThrow(DETAIL);
    expect(logged.at(-1)).toMatchObject({ message: DETAIL, fields: { code: "57P01" } });
  });

  it("HTTP+JSON: GetTask answers 503 UNAVAILABLE with Retry-After", async () => {
    const response = await fetch(`${base}/a2a/echo/tasks/${crypto.randomUUID()}`, { headers: { "A2A-Version": "1.0" } });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toEqual({ error: { code: 503, status: "UNAVAILABLE", message: DETAIL, details: [] } });
  });

  it("gRPC: the failure is UNAVAILABLE with the detail", () => {
    const failure = grpcFailure(adminShutdown(), logger, {}) as Error & { status?: number };
    expect(failure.status).toBe(GRPC_STATUS_CODE.UNAVAILABLE);
    expect(failure.message).toBe(DETAIL);
  });

  it("the agent cannot be read before the handler is reached: each binding still answers in its own error shape", async () => {
    assistantsAway = true;
    try {
      const rpc = await fetch(`${base}/a2a/echo`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 42, method: "GetTask", params: { id: crypto.randomUUID() } }),
      });
      expect(rpc.status).toBe(200);
      expect(await rpc.json()).toEqual({
        jsonrpc: "2.0",
        id: 42,
        error: { code: -32603, message: DETAIL, data: { reason: "STORAGE_UNAVAILABLE", code: "57P01", retryAfterSeconds: 5 } },
      });
      const rest = await fetch(`${base}/a2a/echo/tasks/${crypto.randomUUID()}`, { headers: { "A2A-Version": "1.0" } });
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toBe("5");
      expect(await rest.json()).toEqual({ error: { code: 503, status: "UNAVAILABLE", message: DETAIL, details: [] } });
    } finally {
      assistantsAway = false;
    }
  });
});
