import { FakeListChatModel } from "@langchain/core/utils/testing";
import { interrupt, MessagesAnnotation, StateGraph } from "@langchain/langgraph";

/** What the model says first, one character per token: enough tokens for a page to see the text grow. */
export const CHATTY_REPLY = "Let me think about that, one token at a time.";
/** The interrupt's payload: what the page shows the human. */
export const CHATTY_QUESTION = "Which colour do you like?";

export function chattyAnswer(answer: string): string {
  return `You like ${answer}.`;
}

/**
 * A chat model that streams `text` one character every `sleepMs`, without network. A new one per call:
 * FakeListChatModel cycles through its responses, so a shared instance would answer differently on
 * the second run.
 */
function fakeModel(text: string, sleepMs: number) {
  return new FakeListChatModel({ responses: [text], sleep: sleepMs });
}

/**
 * Talks (streamed tokens), then asks the human a question with interrupt() and, once resumed, answers
 * with what the human said (streamed too). `talk` and `ask` are separate nodes so that resuming re-runs
 * only `ask`, and the first reply is not streamed twice.
 */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("talk", async (state, config) => ({ messages: [await fakeModel(CHATTY_REPLY, 60).invoke(state.messages, config)] }))
  .addNode("ask", async (state, config) => {
    const answer = interrupt({ question: CHATTY_QUESTION }) as string;
    return { messages: [await fakeModel(chattyAnswer(answer), 20).invoke(state.messages, config)] };
  })
  .addEdge("__start__", "talk")
  .addEdge("talk", "ask")
  .compile();
