import { setTimeout as sleep } from "node:timers/promises";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, interrupt, MessagesAnnotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { z } from "zod";

/** Replies "echo: <last message>"; a custom event and a store write make other stream modes observable. */
export const echoGraph = new StateGraph(MessagesAnnotation)
  .addNode("echo", async (state, config: LangGraphRunnableConfig) => {
    const last = state.messages.at(-1) as BaseMessage | undefined;
    config.writer?.({ progress: "echoing" });
    return { messages: [new AIMessage({ content: `echo: ${String(last?.content ?? "")}` })] };
  })
  .addEdge("__start__", "echo")
  .compile();

const ApprovalState = Annotation.Root({
  request: Annotation<string>(),
  decision: Annotation<string>(),
});

/** Stops at interrupt() until resumed with a decision. */
export const approvalGraph = new StateGraph(ApprovalState)
  .addNode("ask", async (state) => {
    const decision = interrupt({ question: `approve ${state.request}?` }) as string;
    return { decision };
  })
  .addEdge("__start__", "ask")
  .compile();

const SlowState = Annotation.Root({
  steps: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  delayMs: Annotation<number>(),
});

/** Two steps, each sleeping `delayMs` (abortable), so a test can act while it runs. */
export const slowGraph = new StateGraph(SlowState)
  .addNode("first", async (state, config) => {
    await sleep(state.delayMs ?? 300, undefined, { signal: config.signal });
    return { steps: [1] };
  })
  .addNode("second", async (state, config) => {
    await sleep(state.delayMs ?? 300, undefined, { signal: config.signal });
    return { steps: [2] };
  })
  .addEdge("__start__", "first")
  .addEdge("first", "second")
  .compile();

export const failingGraph = new StateGraph(MessagesAnnotation)
  .addNode("fail", async () => {
    throw new Error("graph failed on purpose");
  })
  .addEdge("__start__", "fail")
  .compile();

/** A parent graph with the echo graph as a subgraph node, for `mode|ns` event names. */
export const parentGraph = new StateGraph(MessagesAnnotation).addNode("child", echoGraph).addEdge("__start__", "child").compile();

/** Replies with the identity the server put in `configurable.langgraph_auth_user` ("anonymous" if none). */
export const whoamiGraph = new StateGraph(MessagesAnnotation)
  .addNode("whoami", async (_state, config: LangGraphRunnableConfig) => {
    const user = config.configurable?.langgraph_auth_user as { identity?: string } | undefined;
    return { messages: [new AIMessage({ content: user?.identity ?? "anonymous" })] };
  })
  .addEdge("__start__", "whoami")
  .compile();

const getWeather = tool(async ({ city }: { city: string }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "The weather in a city",
  schema: z.object({ city: z.string() }),
});

const getForecast = tool(
  async (): Promise<string> => {
    throw new Error("weather service down");
  },
  { name: "get_forecast", description: "Always fails", schema: z.object({}) },
);

const ToolCallerState = Annotation.Root({ city: Annotation<string>(), report: Annotation<string>() });

/**
 * Calls the `get_weather` tool with a tool call (id "call-1"), as an agent's tool node does, for the
 * `tools` stream mode; for city "nowhere" also `get_forecast` (id "call-2"), which fails.
 */
export const toolCallerGraph = new StateGraph(ToolCallerState)
  .addNode("call", async (state) => {
    const message = await getWeather.invoke({ id: "call-1", name: "get_weather", args: { city: state.city }, type: "tool_call" });
    if (state.city === "nowhere") {
      await getForecast.invoke({ id: "call-2", name: "get_forecast", args: {}, type: "tool_call" }).catch(() => undefined);
    }
    return { report: String(message.content) };
  })
  .addEdge("__start__", "call")
  .compile();

const ChatState = Annotation.Root({ ...MessagesAnnotation.spec, delayMs: Annotation<number>() });

/**
 * Answers through a chat model that streams its reply one character at a time (LangChain's own
 * FakeListChatModel), for token streaming: "You said: <last message>." A message starting with "ask"
 * first stops at interrupt() and answers about the value it is resumed with, so a continuation streams
 * too. `delayMs` in the input sets the pause before each character (default 5 ms).
 */
export const chatGraph = new StateGraph(ChatState)
  .addNode("reply", async (state, config: LangGraphRunnableConfig) => {
    const last = String(state.messages.at(-1)?.content ?? "");
    const topic = last.startsWith("ask") ? String(interrupt({ question: "what about?" })) : last;
    // A model per call: FakeListChatModel cycles through its responses, which would tie one run's
    // answer to the runs before it.
    const model = new FakeListChatModel({ responses: [`You said: ${topic}.`], sleep: state.delayMs ?? 5 });
    return { messages: [await model.invoke(state.messages, config)] };
  })
  .addEdge("__start__", "reply")
  .compile();
