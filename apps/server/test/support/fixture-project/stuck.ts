import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";

/** Waits on an upstream that never answers, and ignores the run's abort signal: only a run time limit ends it. */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("call_upstream", () => new Promise<never>(() => undefined))
  .addEdge("__start__", "call_upstream")
  .compile();
