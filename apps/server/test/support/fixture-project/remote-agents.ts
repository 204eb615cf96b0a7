import { setTimeout as sleep } from "node:timers/promises";
import { AIMessage } from "@langchain/core/messages";
import { interrupt, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
// Inside the repository, the package `agent-server/a2a` is; a project of its own imports "agent-server/a2a".
import { remoteAgent } from "@agent-server/remote-agent";

/**
 * Two sides of a remote A2A call, served by the same project in two processes:
 * - `worker` (the remote): "ask" asks for a name (interrupt) and greets with it; "slow <ms> <text>"
 *   works <ms> (abortable) before answering "done: <text>"; anything else answers "echo: <text>".
 * - `relay` (the caller): remoteAgent's node, to the agent at REMOTE_AGENT_URL (a `worker` of another process).
 */
export const worker = new StateGraph(MessagesAnnotation)
  .addNode("work", async (state, config) => {
    const text = String(state.messages.at(-1)?.content ?? "");
    if (text.startsWith("ask")) {
      const name = interrupt({ question: "What is your name?" });
      return { messages: [new AIMessage(`hello ${typeof name === "string" ? name : JSON.stringify(name)}`)] };
    }
    const slow = /^slow (\d+) (.*)$/.exec(text);
    if (slow) {
      await sleep(Number(slow[1]), undefined, { signal: config.signal });
      return { messages: [new AIMessage(`done: ${slow[2]}`)] };
    }
    return { messages: [new AIMessage(`echo: ${text}`)] };
  })
  .addEdge("__start__", "work")
  .compile();

const remote = remoteAgent({
  url: process.env.REMOTE_AGENT_URL ?? "http://127.0.0.1:1/a2a/worker",
  name: "worker",
  retry: { initialDelayMs: 100, maxDelayMs: 500, maxUnreachableMs: 60_000 },
  pollIntervalMs: 200,
});

export const relay = new StateGraph(MessagesAnnotation).addNode("relay", remote.node).addEdge("__start__", "relay").compile();
