import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { interrupt, MessagesDeltaValue, StateGraph, StateSchema } from "@langchain/langgraph";

/**
 * A chat state on LangGraph 1.7's `MessagesDeltaValue`: a `DeltaChannel` that checkpoints only each step's
 * new messages, not the list, and rebuilds the list on read by replaying the ancestors' writes through the
 * saver (`getDeltaChannelHistory`).
 */
const DeltaChatState = new StateSchema({ messages: MessagesDeltaValue });

/**
 * Answers "echo: <last message>", then a second step appends a count, so each turn writes messages in two
 * supersteps. A message starting with "ask" first stops at interrupt() and echoes the value it is resumed
 * with (an A2A task that needs input).
 */
export const deltaChatGraph = new StateGraph(DeltaChatState)
  .addNode("reply", (state) => {
    const last = String((state.messages.at(-1) as BaseMessage | undefined)?.content ?? "");
    const text = last.startsWith("ask") ? String(interrupt({ question: "what about?" })) : last;
    return { messages: [new AIMessage(`echo: ${text}`)] };
  })
  .addNode("count", (state) => ({ messages: [new AIMessage(`${state.messages.length} messages`)] }))
  .addEdge("__start__", "reply")
  .addEdge("reply", "count")
  .compile();
