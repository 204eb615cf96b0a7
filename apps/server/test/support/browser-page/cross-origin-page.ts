// The script of a page served from another origin than the agent server, bundled for the browser by
// esbuild at test time (see page-server.ts). It uses the official clients exactly as a frontend does;
// the test calls `crossOriginScenario(apiUrl)` in the page and reads what it returns.
import { SendMessageRequest, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Client } from "@langchain/langgraph-sdk";

export interface ScenarioResult {
  origin: string;
  /** Every streamed part, in order: event name and the AI reply it carries, if any. */
  events: { event: string; reply?: string }[];
  /** The run id `onRunCreated` read from Content-Location (an exposed header). */
  createdRunId?: string;
  /** The run id of the stream's metadata event. */
  metadataRunId?: string;
  /** `includePagination`: X-Pagination-Next as the page could read it. */
  nextPage: string | null;
  a2a: { state: string; artifact: unknown; taskId: string; fetchedArtifact: unknown };
  /** SendStreamingMessage (SSE): the kind of each streamed event, and the task's artifact afterwards. */
  a2aStream: { events: string[]; state: string; artifact: unknown };
}

function replyOf(data: unknown): string | undefined {
  const messages = (data as { messages?: { type?: string; content?: unknown }[] })?.messages;
  const ai = messages?.filter((m) => m.type === "ai").at(-1);
  return typeof ai?.content === "string" ? ai.content : undefined;
}

async function crossOriginScenario(apiUrl: string): Promise<ScenarioResult> {
  const client = new Client({ apiUrl });
  const thread = await client.threads.create();
  const events: ScenarioResult["events"] = [];
  let createdRunId: string | undefined;
  let metadataRunId: string | undefined;
  const stream = client.runs.stream(thread.thread_id, "echo", {
    input: { messages: [{ role: "user", content: "hello from the page" }] },
    streamMode: ["values"],
    onRunCreated: ({ run_id }) => {
      createdRunId = run_id;
    },
  });
  for await (const part of stream) {
    events.push({ event: part.event, reply: replyOf(part.data) });
    if (part.event === "metadata") metadataRunId = (part.data as { run_id: string }).run_id;
  }
  const page = await client.assistants.search({ limit: 1, includePagination: true });

  // Trailing slash: the SDK resolves the card path relative to the agent's URL.
  const agent = await new ClientFactory().createFromUrl(`${apiUrl}/a2a/echo/`);
  const sent = await agent.sendMessage(
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hello over A2A" }] } }),
  );
  if (!("status" in sent)) throw new Error(`expected a task, got a message: ${JSON.stringify(sent)}`);
  const fetched = await agent.getTask({ id: sent.id, tenant: "" });

  const streamed: string[] = [];
  let streamedTaskId: string | undefined;
  const streaming = SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "streamed over A2A" }] },
  });
  for await (const event of agent.sendMessageStream(streaming)) {
    const payload = event.payload;
    streamed.push(payload?.$case ?? "none");
    if (payload?.$case === "task") streamedTaskId = payload.value.id;
    else if (payload?.$case === "statusUpdate" || payload?.$case === "artifactUpdate") streamedTaskId = payload.value.taskId;
  }
  const streamedTask = await agent.getTask({ id: streamedTaskId!, tenant: "" });
  return {
    origin: (globalThis as unknown as { location: { origin: string } }).location.origin,
    events,
    createdRunId,
    metadataRunId,
    nextPage: page.next,
    a2a: {
      state: TaskState[sent.status!.state],
      artifact: sent.artifacts[0]?.parts[0]?.content,
      taskId: sent.id,
      fetchedArtifact: fetched.artifacts[0]?.parts[0]?.content,
    },
    a2aStream: {
      events: streamed,
      state: TaskState[streamedTask.status!.state],
      artifact: streamedTask.artifacts[0]?.parts[0]?.content,
    },
  };
}

/** A plain cross-origin request, for the origin a server does not allow: the browser's own error. */
async function tryFetch(url: string): Promise<string> {
  try {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    return `status ${response.status}`;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

Object.assign(globalThis, { crossOriginScenario, tryFetch });
