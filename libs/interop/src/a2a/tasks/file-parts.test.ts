import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCard, SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client as A2AClient } from "@a2a-js/sdk/client";
import { ContentTypeNotSupportedError } from "@a2a-js/sdk/errors";
import { Hono, type Context } from "hono";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { errorCode } from "../../../test/support/a2a-clients.js";
import { agentCardFor, agentCardJson } from "../agent-card.js";
import { consoleA2ALogger } from "../request-errors.js";
import type { A2AHandlerDeps } from "../handler-deps.js";
import { TaskRequestHandler } from "../request-handler.js";
import { openScope } from "../request-scope.js";
import { a2aRoutes } from "../routes.js";
import { handleHttpJson } from "../transports/http-json.js";
import { handleJsonRpc } from "../transports/json-rpc.js";

/**
 * File parts end to end, through the official @a2a-js/sdk client (JSON-RPC and HTTP+JSON) and raw v0.3
 * JSON-RPC: accepted as LangChain content blocks when the agent's card declares their media type,
 * refused with -32005 (nothing created) otherwise. The input modes are read from the card object the
 * request handler holds; langgraph.json cannot set them here, so these agents are served by the real
 * transports over a `TaskRequestHandler` built with a card whose modes the test sets.
 */

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);

/** Agents at `/<prefix>/{assistant_id}` whose card declares `modes` (the card's default input modes). */
function agentsWithModes(deps: A2AHandlerDeps, prefix: string, modes: string[]): Hono {
  const app = new Hono();
  const agent = async (c: Context) => {
    const id = c.req.param("assistant_id") ?? "";
    const assistant = (await deps.storage.assistants.get(deps.engine.registry.resolveAssistantId(id)))!;
    const card = agentCardFor(assistant, `${new URL(c.req.url).origin}/${prefix}/${id}`);
    card.defaultInputModes = ["text/plain", ...modes];
    return { card, handler: new TaskRequestHandler(deps, assistant, card, undefined) };
  };
  app.get(`/${prefix}/:assistant_id/.well-known/agent-card.json`, async (c) => c.json(agentCardJson((await agent(c)).card)));
  app.post(`/${prefix}/:assistant_id`, async (c) => {
    const { card, handler } = await agent(c);
    return handleJsonRpc(c, handler, card, openScope, consoleA2ALogger);
  });
  app.on(["GET", "POST", "DELETE"], `/${prefix}/:assistant_id/*`, async (c) => {
    const { card, handler } = await agent(c);
    const subpath = c.req.path.slice(`/${prefix}/${c.req.param("assistant_id")}`.length);
    return handleHttpJson(c, subpath, handler, card, openScope, consoleA2ALogger);
  });
  return app;
}

function request(parts: unknown[], taskId = ""): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId, parts } });
}

/** The run's final state values, from the task artifact's data part. */
function values(task: Task): Record<string, any> {
  for (const artifact of task.artifacts)
    for (const part of artifact.parts) if (part.content?.$case === "data") return part.content.value as Record<string, any>;
  throw new Error("the task has no data artifact");
}

describe.each(drivers.filter((d) => d.name !== "postgres"))("A2A file parts ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let server: TestServer;
  let storage: Storage;
  let base: string;

  const client = async (path: string, binding: "JSONRPC" | "HTTP+JSON" = "JSONRPC"): Promise<A2AClient> => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    return factory.createFromUrl(`${base}/${path}/`);
  };
  const counts = async () => ({ threads: await storage.threads.count({}), runs: (await storage.runs.search({ limit: 10_000 })).length });

  beforeAll(async () => {
    opened = await driver.open();
    storage = opened.storage;
    server = await startTestServer(storage, {
      app: {
        extraRoutes: [
          a2aRoutes,
          (deps) => agentsWithModes(deps, "png", ["image/png"]),
          (deps) => agentsWithModes(deps, "images", ["IMAGE/*"]),
          (deps) => agentsWithModes(deps, "anything", ["*/*"]),
        ],
      },
    });
    base = server.url.replace(/\/$/, "");
  });
  afterAll(async () => {
    await server?.close();
    await opened?.dispose();
  });

  it("the card declares the modes, and the official client reads it", async () => {
    const card = AgentCard.fromJSON(await (await fetch(`${base}/png/echo/.well-known/agent-card.json`)).json());
    expect(card.defaultInputModes).toEqual(["text/plain", "image/png"]);
  });

  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    it(`${binding}: declared image/png in bytes and by URL reaches the graph as content blocks after the text`, async () => {
      const echo = await client("png/echo", binding);
      const task = (await echo.sendMessage(
        request([
          { text: "what is in these?" },
          { raw: PNG.toString("base64"), mediaType: "image/png", filename: "pixel.png" },
          { url: "https://example.com/cat.png", mediaType: "Image/PNG" },
        ]),
      )) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const [asked] = values(task).messages;
      expect(asked).toMatchObject({ type: "human" });
      expect(asked.content).toEqual([
        { type: "text", text: "what is in these?" },
        { type: "image", mimeType: "image/png", data: PNG.toString("base64"), metadata: { filename: "pixel.png" } },
        { type: "image", mimeType: "Image/PNG", url: "https://example.com/cat.png" },
      ]);
      // The task's history keeps the file parts as sent.
      const read = await echo.getTask({ tenant: "", id: task.id });
      const sent = read.history[0]!.parts.map((p) => p.content?.$case);
      expect(sent).toEqual(["text", "raw", "url"]);
      expect(read.history[0]!.parts[1]!.content).toEqual({ $case: "raw", value: PNG });
    });
  }

  it("undeclared media types: -32005 (HTTP+JSON 400) before any thread or run exists", async () => {
    const before = await counts();
    const png = [{ text: "x" }, { raw: PNG.toString("base64"), mediaType: "image/png" }];
    // The default card declares text/plain only.
    expect(await errorCode((await client("a2a/echo")).sendMessage(request(png)))).toBe(-32005);
    const rest = await (await client("a2a/echo", "HTTP+JSON")).sendMessage(request(png)).catch((error: unknown) => error);
    expect(rest).toBeInstanceOf(ContentTypeNotSupportedError);
    expect((rest as { statusCode?: number }).statusCode).toBe(400);
    const pngOnly = await client("png/echo");
    expect(await errorCode(pngOnly.sendMessage(request([{ url: "https://example.com/a.jpg", mediaType: "image/jpeg" }])))).toBe(-32005);
    // No media type: application/octet-stream, which image/png does not cover.
    expect(await errorCode(pngOnly.sendMessage(request([{ text: "x" }, { url: "https://example.com/blob" }])))).toBe(-32005);
    const images = await client("images/echo");
    expect(await errorCode(images.sendMessage(request([{ url: "https://example.com/a.pdf", mediaType: "application/pdf" }])))).toBe(-32005);
    expect(await counts()).toEqual(before);
  });

  it("wildcards: image/* takes any image, */* any file, also one without a media type", async () => {
    const images = await client("images/echo");
    const jpeg = (await images.sendMessage(request([{ url: "https://example.com/a.jpg", mediaType: "image/jpeg" }]))) as Task;
    expect(values(jpeg).messages[0].content).toEqual([{ type: "image", mimeType: "image/jpeg", url: "https://example.com/a.jpg" }]);
    const anything = await client("anything/echo");
    const files = (await anything.sendMessage(
      request([
        { url: "https://example.com/a.pdf", mediaType: "application/pdf", filename: "a.pdf" },
        { raw: Buffer.from("bytes").toString("base64") },
      ]),
    )) as Task;
    expect(values(files).messages[0].content).toEqual([
      { type: "file", mimeType: "application/pdf", url: "https://example.com/a.pdf", metadata: { filename: "a.pdf" } },
      { type: "file", mimeType: "application/octet-stream", data: Buffer.from("bytes").toString("base64") },
    ]);
  });

  it("v0.3 message/send with kind: file parts (bytes and uri) through raw JSON-RPC", async () => {
    const rpc = async (path: string, params: unknown) =>
      (await (
        await fetch(`${base}/${path}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params }),
        })
      ).json()) as { result?: any; error?: { code: number } };
    const parts = [
      { kind: "text", text: "v0.3 files" },
      { kind: "file", file: { bytes: PNG.toString("base64"), mimeType: "image/png", name: "old.png" } },
      { kind: "file", file: { uri: "https://example.com/old.png", mimeType: "image/png" } },
    ];
    const message = { kind: "message", messageId: crypto.randomUUID(), role: "user", parts };
    const answer = await rpc("png/echo", { message });
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    const data = answer.result.artifacts[0].parts.find((p: { kind: string }) => p.kind === "data").data;
    expect(data.messages[0].content).toEqual([
      { type: "text", text: "v0.3 files" },
      { type: "image", mimeType: "image/png", data: PNG.toString("base64"), metadata: { filename: "old.png" } },
      { type: "image", mimeType: "image/png", url: "https://example.com/old.png" },
    ]);
    const before = await counts();
    expect((await rpc("a2a/echo", { message: { ...message, messageId: crypto.randomUUID() } })).error?.code).toBe(-32005);
    expect(await counts()).toEqual(before);
  });

  it("a continuation with a file resumes the interrupt with { text, files }", async () => {
    const approval = await client("png/approval");
    const asked = (await approval.sendMessage(request([{ data: { request: "sign" } }]))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const signed = (await approval.sendMessage(
      request([{ text: "signed" }, { raw: PNG.toString("base64"), mediaType: "image/png", filename: "signature.png" }], asked.id),
    )) as Task;
    expect(signed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(values(signed).decision).toEqual({
      text: "signed",
      files: [{ type: "image", mimeType: "image/png", data: PNG.toString("base64"), metadata: { filename: "signature.png" } }],
    });
    // A continuation with an undeclared file is refused and leaves the task waiting.
    const other = (await approval.sendMessage(request([{ data: { request: "again" } }]))) as Task;
    const pdf = [{ url: "https://example.com/a.pdf", mediaType: "application/pdf" }];
    expect(await errorCode(approval.sendMessage(request(pdf, other.id)))).toBe(-32005);
    expect((await approval.getTask({ tenant: "", id: other.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });
});
