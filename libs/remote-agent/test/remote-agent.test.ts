import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { afterEach, describe, expect, it } from "vitest";
import { remoteAgent, RemoteAgentError, type RemoteAgentOptions, type RemoteQuestion } from "../src/index.js";
import { installRemoteAgentHooks, type RemoteCallInfo } from "../src/hooks.js";
import { startReferenceAgent, type ReferenceAgent } from "@agent-server/testing/a2a-reference-agent";

/**
 * remoteAgent in a graph executed in this process (LangGraph's MemorySaver), against the @a2a-js/sdk
 * reference server on loopback. The two-server tests with our own server on each side (crashes,
 * restarts, SQLite and PostgreSQL) are apps/server's remote-agent tests.
 */
const agents: ReferenceAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function reference(options: Parameters<typeof startReferenceAgent>[0] = {}): Promise<ReferenceAgent> {
  const agent = await startReferenceAgent(options);
  agents.push(agent);
  return agent;
}

function relayGraph(options: RemoteAgentOptions) {
  const agent = remoteAgent(options);
  const graph = new StateGraph(MessagesAnnotation).addNode("relay", agent.node).addEdge(START, "relay").addEdge("relay", END);
  return graph.compile({ checkpointer: new MemorySaver() });
}

const last = (messages: BaseMessage[]) => messages.at(-1)!;
const thread = () => ({ configurable: { thread_id: crypto.randomUUID() } });

describe("remoteAgent against the @a2a-js/sdk reference server", () => {
  it("answers with the remote's reply, and the next turn continues the same remote context", async () => {
    const remote = await reference();
    const graph = relayGraph({ url: remote.url });
    const config = thread();
    const first = await graph.invoke({ messages: [new HumanMessage("hi")] }, config);
    const answer = last(first.messages) as AIMessage;
    expect(answer.getType()).toBe("ai");
    expect(answer.content).toBe("echo: hi (message 1 of this context)");
    const record = answer.response_metadata.a2a as { taskId: string; contextId: string; state: string; agent: string };
    expect(record).toMatchObject({ agent: remote.url, taskId: remote.tasks[0], state: "completed" });

    const second = await graph.invoke({ messages: [new HumanMessage("again")] }, config);
    expect(last(second.messages).content).toBe("echo: again (message 2 of this context)");
    expect(((last(second.messages) as AIMessage).response_metadata.a2a as { contextId: string }).contextId).toBe(record.contextId);
    expect(remote.tasks).toHaveLength(2);
    // Another thread is another remote context.
    const other = await graph.invoke({ messages: [new HumanMessage("elsewhere")] }, thread());
    expect(last(other.messages).content).toBe("echo: elsewhere (message 1 of this context)");
  });

  it("reads the task when the agent cannot stream", async () => {
    const remote = await reference({ streaming: false, binding: "HTTP+JSON" });
    const graph = relayGraph({ url: remote.url, pollIntervalMs: 50 });
    const result = await graph.invoke({ messages: [new HumanMessage("wait 300")] }, thread());
    expect(last(result.messages).content).toBe("waited");
    expect(remote.tasks).toHaveLength(1);
  });

  it("turns the remote's input-required into an interrupt, and sends the resume value into the same task", async () => {
    const remote = await reference();
    const graph = relayGraph({ url: remote.url });
    const config = thread();
    const asked = await graph.invoke({ messages: [new HumanMessage("ask me")] }, config);
    const interrupts = (asked as { __interrupt__?: Array<{ value: RemoteQuestion }> }).__interrupt__ ?? [];
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]!.value).toMatchObject({
      type: "a2a.input_required",
      question: "What is your name?",
      taskId: remote.tasks[0],
      url: remote.url,
    });

    const resumed = await graph.invoke(new Command({ resume: "Ada" }), config);
    expect(last(resumed.messages).content).toBe("hello Ada");
    expect(remote.tasks).toHaveLength(1);
    expect(remote.messageIds).toHaveLength(2);
  });

  it("turns auth-required into an interrupt naming the card's security schemes", async () => {
    const remote = await reference();
    const graph = relayGraph({ url: remote.url });
    const config = thread();
    const asked = await graph.invoke({ messages: [new HumanMessage("auth please")] }, config);
    const [question] = (asked as { __interrupt__?: Array<{ value: RemoteQuestion }> }).__interrupt__ ?? [];
    expect(question?.value).toMatchObject({ type: "a2a.auth_required", question: "Sign in first", securitySchemes: ["bearer"] });
    const resumed = await graph.invoke(new Command({ resume: { text: "token ready" } }), config);
    expect(last(resumed.messages).content).toBe("signed in: token ready");
    expect(remote.tasks).toHaveLength(1);
  });

  it("re-attaches to the recorded task after the run was stopped for a hand-back, instead of sending again", async () => {
    const remote = await reference();
    const graph = relayGraph({ url: remote.url });
    const config = thread();
    const controller = new AbortController();
    const stopped = graph.invoke({ messages: [new HumanMessage("wait 800")] }, { ...config, signal: controller.signal });
    await until(() => remote.tasks.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort("shutdown");
    await expect(stopped).rejects.toBeDefined();
    const result = await graph.invoke(null, config);
    expect(last(result.messages).content).toBe("waited");
    expect(remote.tasks).toHaveLength(1);
    expect(remote.cancels).toEqual([]);
  });

  it("cancels the remote task when the local run is cancelled, and not when it is handed back", async () => {
    const remote = await reference();
    const graph = relayGraph({ url: remote.url });
    const controller = new AbortController();
    const running = graph.invoke({ messages: [new HumanMessage("hang")] }, { ...thread(), signal: controller.signal });
    await until(() => remote.tasks.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort("interrupt");
    await expect(running).rejects.toBeDefined();
    await until(() => remote.cancels.length === 1, 5_000);
    expect(remote.cancels).toEqual(remote.tasks);
  });

  it("fails naming the agent when it stays unreachable", async () => {
    const remote = await reference();
    const url = remote.url;
    await remote.close();
    agents.length = 0;
    const graph = relayGraph({ url, retry: { initialDelayMs: 50, maxUnreachableMs: 400 } });
    const error = await graph.invoke({ messages: [new HumanMessage("hi")] }, thread()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteAgentError);
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).toMatch(/unreachable|fetch failed/);
  });

  it("is a tool named and described from the card, whose answer is the tool message", async () => {
    const remote = await reference();
    const agent = remoteAgent({ url: remote.url });
    expect(agent.tool.name).toMatch(/^[a-zA-Z0-9_-]+$/);
    const described = await agent.describedTool();
    expect(described.name).toBe("Reference_Echo");
    expect(described.description).toContain("Echo: Repeats what it is sent");
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("tools", new ToolNode([described]))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile({ checkpointer: new MemorySaver() });
    const call = new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: described.name, args: { message: "from a tool" } }] });
    const result = await graph.invoke({ messages: [call] }, thread());
    const reply = last(result.messages);
    expect(reply.getType()).toBe("tool");
    expect(reply.content).toBe("echo: from a tool (message 1 of this context)");
  });

  it("reports each call to the server's hooks", async () => {
    const remote = await reference();
    const seen: Array<{ info: RemoteCallInfo; outcome: string }> = [];
    const uninstall = installRemoteAgentHooks({ callEnded: (info, outcome) => seen.push({ info, outcome }) });
    try {
      await relayGraph({ url: remote.url, name: "ref" }).invoke({ messages: [new HumanMessage("hi")] }, thread());
    } finally {
      uninstall();
    }
    expect(seen).toEqual([
      { info: expect.objectContaining({ agent: "ref", state: "completed", taskId: remote.tasks[0], node: "relay" }), outcome: "completed" },
    ]);
  });
});

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
