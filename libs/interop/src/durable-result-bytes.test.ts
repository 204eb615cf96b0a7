import { afterAll, describe, expect, it } from "vitest";
import { SendMessageRequest, TaskState, type Artifact, type StreamResponse, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import { Annotation, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { a2aRoutes } from "./index.js";

/**
 * Issue 39: a durable task result must read back as the very document it was first answered as. Clients
 * hash, cache and sign what they receive, so "the same JSON value" is not enough: SendMessage, a stream's
 * final event and every later GetTask (after another turn, a keep_latest prune and a restart) must render
 * a task's artifact byte for byte alike. PostgreSQL's jsonb reorders object keys (shorter keys first, then
 * bytewise), so this graph answers with keys in neither sorted nor jsonb order, nested.
 */
const UnsortedState = Annotation.Root({
  ...MessagesAnnotation.spec,
  data: Annotation<Record<string, unknown>>(),
});

const unsortedGraph = new StateGraph(UnsortedState)
  .addNode("answer", async (state) => {
    const said = String(state.messages.at(-1)?.content ?? "");
    return {
      messages: [{ role: "assistant", content: `echo: ${said}` }],
      data: { zeta: 1, a: 2, mm: { b: 1, a: 2, said }, list: [{ yy: 1, x: 2, longer: { d: 4, c: 3 } }] },
    };
  })
  .addEdge("__start__", "answer")
  .compile();

/** The data part's keys as the graph wrote them: what every rendering of the task must carry. */
const GRAPH_ORDER = (said: string) =>
  JSON.stringify({ zeta: 1, a: 2, mm: { b: 1, a: 2, said }, list: [{ yy: 1, x: 2, longer: { d: 4, c: 3 } }] });

async function startA2AServer(storage: Storage): Promise<TestServer> {
  const server = await startTestServer(storage, { app: { extraRoutes: [a2aRoutes] } });
  server.engine.registry.register("unsorted", unsortedGraph);
  await server.engine.registry.ensureSystemAssistants(storage);
  return server;
}

/** The JSON-RPC response bodies the client received, as text, in order (SSE streams are not kept). */
type BodyLog = string[];

/** The official client over JSON-RPC, keeping every JSON response body it receives in `bodies`. */
async function a2aClient(server: TestServer, bodies: BodyLog): Promise<A2AClient> {
  const fetchImpl: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.headers.get("content-type")?.includes("application/json")) bodies.push(await response.clone().text());
    return response;
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      preferredTransports: ["JSONRPC"],
    }),
  );
  return factory.createFromUrl(`${server.url.replace(/\/$/, "")}/a2a/unsorted/`);
}

function message(text: string, contextId = ""): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, parts: [{ text }] } });
}

async function send(client: A2AClient, text: string, contextId = ""): Promise<Task> {
  const result = await client.sendMessage(message(text, contextId));
  if (!("status" in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

/**
 * The artifacts section of the last response body, exactly as received: the body is compact JSON, so the
 * section re-serialized from its parse is the received text itself (asserted).
 */
function rawArtifacts(bodies: BodyLog): string {
  const body = bodies.at(-1)!;
  const parsed = JSON.parse(body) as { result: { task?: { artifacts: unknown }; artifacts?: unknown } };
  const section = JSON.stringify(parsed.result.task?.artifacts ?? parsed.result.artifacts);
  expect(body).toContain(section);
  return section;
}

/** A task's artifacts as the SDK client handed them over, as JSON text. */
const artifactsText = (artifacts: Artifact[]) => JSON.stringify(artifacts);

describe.each(drivers)("A2A durable results are byte-identical ($name)", (driver) => {
  const opened: { dispose?: () => Promise<void> } = {};
  afterAll(async () => opened.dispose?.());

  it("SendMessage, the stream's final event and GetTask after a second turn, keep_latest prune and reopen render one document", async () => {
    const storage = await driver.open();
    opened.dispose = storage.dispose;
    let server = await startA2AServer(storage.storage);
    try {
      const bodies: BodyLog = [];
      const client = await a2aClient(server, bodies);

      const first = await send(client, "first");
      expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const answered = { sdk: artifactsText(first.artifacts), raw: rawArtifacts(bodies) };
      // The data part carries the graph's key order, in what the SDK hands over and on the wire.
      expect(answered.sdk).toContain(GRAPH_ORDER("first"));
      expect(answered.raw).toContain(GRAPH_ORDER("first"));

      // Another turn in the same context, streamed: its final artifact is the recorded one, read back.
      const events: StreamResponse[] = [];
      for await (const event of client.sendMessageStream(message("second", first.contextId))) events.push(event);
      const streamedTask = events[0]!.payload?.$case === "task" ? events[0]!.payload.value : undefined;
      const finalEvent = events.findLast((e) => e.payload?.$case === "artifactUpdate")?.payload;
      expect(finalEvent?.$case).toBe("artifactUpdate");
      const streamedArtifact = finalEvent?.$case === "artifactUpdate" ? finalEvent.value.artifact! : undefined;
      expect(artifactsText([streamedArtifact!])).toContain(GRAPH_ORDER("second"));

      expect(await server.client.threads.prune([first.contextId], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
      const afterPrune = await client.getTask({ tenant: "", id: first.id });
      expect({ sdk: artifactsText(afterPrune.artifacts), raw: rawArtifacts(bodies) }).toEqual(answered);

      if (storage.reopen) {
        // A process restart: the same data opened by a new driver (SQLite: the file; PostgreSQL: a new pool).
        await server.close();
        server = await startA2AServer(await storage.reopen());
        const reopenedClient = await a2aClient(server, bodies);
        const reopened = await reopenedClient.getTask({ tenant: "", id: first.id });
        expect(reopened.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect({ sdk: artifactsText(reopened.artifacts), raw: rawArtifacts(bodies) }).toEqual(answered);
        const second = await reopenedClient.getTask({ tenant: "", id: streamedTask!.id });
        expect(artifactsText(second.artifacts)).toBe(artifactsText([streamedArtifact!]));
      }
    } finally {
      await server.close();
    }
  });
});
