import { setTimeout as sleep } from "node:timers/promises";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, MessagesAnnotation, StateGraph } from "@langchain/langgraph";

/** The nodes, in order: each one is a checkpoint of its own, so a run killed mid-way has some behind it. */
export const STEPS = ["plan", "work", "check", "reply"] as const;

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** Each node appends its name once it has finished: a node run twice would show twice. */
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** How long each node takes (input; default 200 ms). */
  stepMs: Annotation<number>(),
});

function step(name: (typeof STEPS)[number]) {
  return async (state: typeof State.State, config: { signal?: AbortSignal }) => {
    await sleep(state.stepMs ?? 200, undefined, { signal: config.signal });
    if (name !== "reply") return { steps: [name] };
    const last = [...state.messages].reverse().find((m: BaseMessage) => m.getType() === "human");
    return { steps: [name], messages: [new AIMessage({ content: `done: ${String(last?.content ?? "")}` })] };
  };
}

/** Four slow nodes in a row, replying "done: <the user's message>": a run that takes a little time. */
export const graph = new StateGraph(State)
  .addNode("plan", step("plan"))
  .addNode("work", step("work"))
  .addNode("check", step("check"))
  .addNode("reply", step("reply"))
  .addEdge("__start__", "plan")
  .addEdge("plan", "work")
  .addEdge("work", "check")
  .addEdge("check", "reply")
  .compile();
