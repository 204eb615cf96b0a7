import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { remoteAgent } from "agent-server/a2a";

/**
 * Relays each message to another agent over A2A and answers with its reply: here the `echo` assistant of
 * this same server (a path names an agent of the server the graph runs in; any A2A agent's URL works).
 * The call is durable: a crash or a restart while echo works re-attaches to the same remote task, the
 * next turn of this thread continues the same remote context, and cancelling this run cancels echo's task.
 */
const echo = remoteAgent({ url: "/a2a/echo" });

export const graph = new StateGraph(MessagesAnnotation).addNode("relay", echo.node).addEdge("__start__", "relay").compile();
