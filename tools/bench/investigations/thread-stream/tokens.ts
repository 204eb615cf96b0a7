import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";

/** How many tokens (characters) the model streams per run; the bench sets it through the environment. */
const TOKENS = Number(process.env.BENCH_TOKENS ?? 500);

/** One node whose chat model streams `TOKENS` one-character tokens without pausing: streaming is the only work. */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("talk", async (state, config) => ({
    messages: [await new FakeListChatModel({ responses: ["x".repeat(TOKENS)] }).invoke(state.messages, config)],
  }))
  .addEdge("__start__", "talk")
  .compile();
