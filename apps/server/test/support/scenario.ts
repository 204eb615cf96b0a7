import { systemAssistantId } from "@agent-server/engine";
import { Client } from "@langchain/langgraph-sdk";
import { expect } from "vitest";

/**
 * What a newcomer does first against the example project, through the official SDK: the server is up,
 * both graphs have their system assistant, and an echo run on a thread answers. Returns the thread.
 */
export async function exerciseExample(url: string): Promise<{ client: Client; threadId: string }> {
  const ok = await fetch(`${url}/ok`);
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ ok: true });

  const client = new Client({ apiUrl: url });
  const assistants = await client.assistants.search({ metadata: { created_by: "system" }, limit: 10 });
  expect(assistants.map((a) => ({ id: a.assistant_id, graph: a.graph_id })).sort((a, b) => a.graph.localeCompare(b.graph))).toEqual([
    { id: systemAssistantId("approval"), graph: "approval" },
    { id: systemAssistantId("echo"), graph: "echo" },
    { id: systemAssistantId("relay"), graph: "relay" },
  ]);

  const thread = await client.threads.create();
  const values = (await client.runs.wait(thread.thread_id, "echo", {
    input: { messages: [{ role: "user", content: "hello" }] },
  })) as { messages: { type: string; content: string }[] };
  expect(values.messages.map((m) => [m.type, m.content])).toEqual([
    ["human", "hello"],
    ["ai", "echo: hello"],
  ]);
  return { client, threadId: thread.thread_id };
}

/** The approval example: stops at interrupt() with its question, and a resume completes it with the decision. */
export async function exerciseApproval(client: Client): Promise<string> {
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "approval", { input: { request: "deploy v2" } });
  const waiting = await client.threads.get(thread.thread_id);
  expect(waiting.status).toBe("interrupted");
  expect(Object.values(waiting.interrupts ?? {}).flat()).toEqual([
    expect.objectContaining({ value: { question: 'Approve "deploy v2"?' } }),
  ]);

  const done = (await client.runs.wait(thread.thread_id, "approval", { command: { resume: "approved" } })) as Record<string, unknown>;
  expect(done).toMatchObject({ request: "deploy v2", decision: "approved" });
  expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  return thread.thread_id;
}
