import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, interrupt, MessagesAnnotation, Send, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";

/**
 * Graphs for the stream tests of subgraphs started by tool calls (the `lifecycle` mode's `tool_call_id`,
 * `namespace` filters): a supervisor whose model asks for one `research` tool call per topic, each run
 * by a tool node (LangChain's per-call `Send` with `{ tool_call }`) that calls the researcher subagent.
 * The researcher answers through a streaming chat model; topic "fail" makes it throw, "ask" makes it
 * stop at interrupt() until resumed.
 */

const researcher = new StateGraph(MessagesAnnotation)
  .addNode("answer", async (state, config: LangGraphRunnableConfig) => {
    const topic = String(state.messages.at(-1)?.content ?? "");
    if (topic === "fail") throw new Error("research failed on purpose");
    const about = topic === "ask" ? String(interrupt({ question: "which aspect?" })) : topic;
    const model = new FakeListChatModel({ responses: [`notes on ${about}`], sleep: 1 });
    return { messages: [await model.invoke(state.messages, config)] };
  })
  .addEdge("__start__", "answer")
  .compile();

const DelegatorState = Annotation.Root({ ...MessagesAnnotation.spec, topics: Annotation<string[]>() });

interface ResearchCall {
  tool_call: { id: string; name: string; args: { topic: string } };
}

export const delegatorGraph = new StateGraph(DelegatorState)
  .addNode("plan", async (state) => ({
    messages: [
      new AIMessage({
        content: "",
        tool_calls: (state.topics ?? []).map((topic, i) => ({ id: `call-${i + 1}`, name: "research", args: { topic } })),
      }),
    ],
  }))
  .addNode("tools", async (input: ResearchCall, config: LangGraphRunnableConfig) => {
    const { tool_call: call } = input;
    const result = await researcher.invoke({ messages: [{ role: "user", content: call.args.topic }] }, config);
    const last = result.messages.at(-1) as BaseMessage;
    return { messages: [new ToolMessage({ content: String(last.content), tool_call_id: call.id })] };
  })
  .addEdge("__start__", "plan")
  .addConditionalEdges("plan", (state) =>
    ((state.messages.at(-1) as AIMessage).tool_calls ?? []).map((call) => new Send("tools", { tool_call: call })),
  )
  .addEdge("tools", "__end__")
  .compile();
