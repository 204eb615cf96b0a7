import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";

/** Replies to the last message with "echo: <its text>". The smallest graph there is. */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("echo", (state) => {
    const last = state.messages.at(-1);
    return { messages: [new AIMessage(`echo: ${last?.text ?? ""}`)] };
  })
  .addEdge("__start__", "echo")
  .compile();
