import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { z } from "zod";

/** A tool the `act` node calls, so a run has a tool call to trace. */
const shout = tool(async ({ text }: { text: string }) => text.toUpperCase(), {
  name: "shout",
  description: "Upper-cases a text",
  schema: z.object({ text: z.string() }),
});

/**
 * What a traced run does: a chat model call (`think`), a tool call (`act`), and a reply. The model is a
 * fake one (no network); a new one per call, as FakeListChatModel cycles through its responses.
 */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("think", async (state, config) => ({
    messages: [await new FakeListChatModel({ responses: ["let me shout that"] }).invoke(state.messages, config)],
  }))
  .addNode("act", async (state, config) => {
    const first = state.messages.find((m) => m.getType() === "human");
    const loud = await shout.invoke({ text: String(first?.content ?? "") }, config);
    return { messages: [new AIMessage(`shouted: ${loud}`)] };
  })
  .addEdge("__start__", "think")
  .addEdge("think", "act")
  .compile();
