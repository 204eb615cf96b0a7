import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCard, TaskState, type Artifact, type StreamResponse } from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { ContentTypeNotSupportedError } from "@a2a-js/sdk/errors";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, startA2AGrpcServer, type A2ACardSettings, type RunningA2AGrpcServer } from "./index.js";
import { messageRequest, sendTask, textsOf } from "../test/support/a2a-clients.js";

/**
 * Issue 13's acceptance matrix: every binding a client can use — JSON-RPC v1.0, HTTP+JSON, gRPC and
 * JSON-RPC v0.3 — through the official @a2a-js/sdk clients, on every driver: send, stream with token
 * chunks, input-required and resume, cancel, push configs, the extended card, and GetTask(first task)
 * after a second turn, a `keep_latest` prune and a restart (a new server and gRPC port over the same
 * database) equal to the first task's original artifact.
 */
type BindingName = "JSONRPC" | "HTTP+JSON" | "GRPC" | "JSONRPC v0.3";
const BINDINGS: BindingName[] = ["JSONRPC", "HTTP+JSON", "GRPC", "JSONRPC v0.3"];

const settings: A2ACardSettings = {
  // Images are declared (so accepted as content blocks); PDFs are not.
  cardConfig: { card: { default_input_modes: ["text/plain", "image/*"] } },
  extendedCard: (card) => ({
    ...card,
    skills: [...((card.skills as unknown[]) ?? []), { id: "extended", name: "Extended", description: "for callers who asked", tags: [] }],
  }),
};

interface Running {
  server: TestServer;
  grpc: RunningA2AGrpcServer;
  base: string;
  close(): Promise<void>;
}

async function start(storage: Storage): Promise<Running> {
  // The cards list the gRPC port, which is bound after the HTTP server (as agent-server does it).
  const bound: { grpc?: RunningA2AGrpcServer } = {};
  const server = await startTestServer(storage, {
    app: { extraRoutes: [(deps) => a2aRoutes(deps, { ...settings, defaultAssistant: "echo", grpc: () => bound.grpc })] },
  });
  const running = await startA2AGrpcServer({ engine: server.engine, storage }, { ...settings, host: "127.0.0.1", port: 0 });
  bound.grpc = running;
  return {
    server,
    grpc: running,
    base: server.url.replace(/\/$/, ""),
    async close() {
      await running.close();
      await server.close();
    },
  };
}

/** A client of `assistant` over one binding, made from the card as a client would. */
async function clientOver(binding: BindingName, base: string, assistant: string): Promise<Client> {
  const card = AgentCard.fromJSON(await (await fetch(`${base}/a2a/${assistant}/.well-known/agent-card.json`)).json());
  if (binding === "JSONRPC v0.3") return new Client(new LegacyJsonRpcTransport({ endpoint: `${base}/a2a/${assistant}` }), card);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
      preferredTransports: [binding],
    }),
  );
  const client = await factory.createFromAgentCard(card);
  expect(client.transport.protocolName).toBe(binding);
  return client;
}

/** What a streaming client shows: the token chunks' text, the last artifact as sent, and the final state. */
async function follow(
  stream: AsyncGenerator<StreamResponse>,
): Promise<{ chunks: string[]; last?: Artifact; appends: boolean[]; final?: TaskState }> {
  const chunks: string[] = [];
  const appends: boolean[] = [];
  let last: Artifact | undefined;
  let final: TaskState | undefined;
  for await (const event of stream) {
    const payload = event.payload;
    if (payload?.$case === "artifactUpdate") {
      const update = payload.value;
      if (update.lastChunk) last = update.artifact;
      else {
        chunks.push(...textsOf(update.artifact?.parts ?? []));
        appends.push(update.append);
      }
    }
    if (payload?.$case === "statusUpdate") final = payload.value.status?.state;
  }
  return { chunks, last, appends, final };
}

describe.each(drivers)("A2A over every binding ($name)", (driver) => {
  let opened: Awaited<ReturnType<typeof driver.open>>;
  let running: Running;
  /** Per binding: the first task of a context that had a second turn and a prune, and its original artifact. */
  const durable = new Map<BindingName, { id: string; artifact: Artifact }>();

  beforeAll(async () => {
    opened = await driver.open();
    running = await start(opened.storage);
  });

  afterAll(async () => {
    await running?.close();
    await opened?.dispose();
  });

  describe.each(BINDINGS)("%s", (binding) => {
    it("sends a message: COMPLETED with the echo artifact, and GetTask renders the same task", async () => {
      const client = await clientOver(binding, running.base, "echo");
      const task = await sendTask(client, [{ text: "hello" }]);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textsOf(task.artifacts[0]!.parts)).toEqual(["echo: hello"]);
      const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
      expect(got.artifacts).toEqual(task.artifacts);
    });

    it("streams the model's tokens, then the recorded artifact GetTask returns later", async () => {
      const client = await clientOver(binding, running.base, "chat");
      let taskId = "";
      const stream = client.sendMessageStream(messageRequest([{ text: "tokens please" }]));
      const seen = await follow(
        (async function* () {
          for await (const event of stream) {
            if (event.payload?.$case === "task") taskId = event.payload.value.id;
            yield event;
          }
        })(),
      );
      expect(seen.chunks.length).toBeGreaterThan(3);
      expect(seen.chunks.join("")).toBe("You said: tokens please.");
      expect(seen.appends[0]).toBe(false);
      expect(seen.appends.slice(1).every(Boolean)).toBe(true);
      expect(seen.final).toBe(TaskState.TASK_STATE_COMPLETED);
      const got = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
      expect(seen.last).toEqual(got.artifacts[0]);
      expect(textsOf(got.artifacts[0]!.parts)).toEqual(["You said: tokens please."]);
    });

    it("asks for input, then resumes the same task with the answer", async () => {
      const client = await clientOver(binding, running.base, "chat");
      const asked = await sendTask(client, [{ text: "ask me" }]);
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const answered = await sendTask(client, [{ text: "the weather" }], { taskId: asked.id, contextId: asked.contextId });
      expect(answered.id).toBe(asked.id);
      expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textsOf(answered.artifacts[0]!.parts)).toEqual(["You said: the weather."]);
    });

    it("takes a declared file part as a content block of the user message, and refuses an undeclared one", async () => {
      const client = await clientOver(binding, running.base, "echo");
      const png = Buffer.from("not really a png").toString("base64");
      const task = await sendTask(client, [{ text: "look" }, { raw: png, mediaType: "image/png", filename: "dot.png" }]);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const values = task.artifacts[0]!.parts.find((p) => p.content?.$case === "data")!.content!.value as {
        messages: Array<{ type: string; content: unknown }>;
      };
      expect(values.messages[0]!.content).toEqual([
        { type: "text", text: "look" },
        expect.objectContaining({ type: "image", mimeType: "image/png", data: png }),
      ]);
      const pdf = [{ text: "read" }, { url: "https://example.com/a.pdf", mediaType: "application/pdf" }];
      await expect(sendTask(client, pdf)).rejects.toBeInstanceOf(ContentTypeNotSupportedError);
    });

    it("cancels a task at work", async () => {
      const client = await clientOver(binding, running.base, "slow");
      const working = await sendTask(client, [{ data: { delayMs: 5_000 } }], { returnImmediately: true });
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(working.status?.state);
      const cancelled = await client.cancelTask({ tenant: "", id: working.id, metadata: undefined });
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await client.getTask({ tenant: "", id: working.id, historyLength: undefined })).status?.state).toBe(
        TaskState.TASK_STATE_CANCELED,
      );
    });

    it("keeps push notification configs of a task: create, get, list, delete", async () => {
      const client = await clientOver(binding, running.base, "echo");
      const task = await sendTask(client, [{ text: "notify me" }]);
      // v0.3 semantics: a config set without an id takes the task id; v1.0 ones name theirs here.
      const id = binding === "JSONRPC v0.3" ? "" : "hook-1";
      const url = "http://127.0.0.1:9/a2a-hook";
      const created = await client.createTaskPushNotificationConfig({
        tenant: "",
        id,
        taskId: task.id,
        url,
        token: "secret",
        authentication: undefined,
      });
      const configId = id || task.id;
      expect(created).toMatchObject({ taskId: task.id, id: configId, url, token: "secret" });
      expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: configId })).toMatchObject({
        id: configId,
        url,
      });
      const listed = await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
      expect(listed.configs.map((c) => c.id)).toEqual([configId]);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: configId });
      const after = await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
      expect(after.configs).toEqual([]);
    });

    it("serves the extended card", async () => {
      const client = await clientOver(binding, running.base, "echo");
      const publicCard = AgentCard.fromJSON(await (await fetch(`${running.base}/a2a/echo/.well-known/agent-card.json`)).json());
      expect(publicCard.capabilities?.extendedAgentCard).toBe(true);
      expect(publicCard.skills.map((s) => s.id)).not.toContain("extended");
      // The client asks its binding for the extended card when the public one says there is one.
      const extended = await client.getAgentCard();
      expect(extended.skills.map((s) => s.id)).toContain("extended");
    });

    it("GetTask(first task) after a second turn and a keep_latest prune equals its original artifact", async () => {
      const client = await clientOver(binding, running.base, "echo");
      const first = await sendTask(client, [{ text: `first over ${binding}` }]);
      const second = await sendTask(client, [{ text: "second" }], { contextId: first.contextId });
      expect(second.id).not.toBe(first.id);
      expect(await running.server.client.threads.prune([first.contextId], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
      const got = await client.getTask({ tenant: "", id: first.id, historyLength: undefined });
      expect(got.artifacts[0]).toEqual(first.artifacts[0]);
      expect(textsOf(got.artifacts[0]!.parts)).toEqual([`echo: first over ${binding}`]);
      durable.set(binding, { id: first.id, artifact: first.artifacts[0]! });
    });
  });

  // The memory driver has no restart (its data lives in the process): `reopen` is undefined there.
  if (!driver.name.startsWith("memory")) {
    it("after a restart, every binding's first task still renders its original artifact", async () => {
      expect([...durable.keys()]).toEqual(BINDINGS);
      await running.close();
      running = await start(await opened.reopen!());
      for (const binding of BINDINGS) {
        const client = await clientOver(binding, running.base, "echo");
        const { id, artifact } = durable.get(binding)!;
        const got = await client.getTask({ tenant: "", id, historyLength: undefined });
        expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(got.artifacts[0]).toEqual(artifact);
      }
    });
  }
});
