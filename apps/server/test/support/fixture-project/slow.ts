import { setTimeout as sleep } from "node:timers/promises";
import { Annotation, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ ms: Annotation<number>(), slept: Annotation<boolean>() });

/** Sleeps `ms` (abortable), so a test can signal the server while a run is executing. */
export const graph = new StateGraph(State)
  .addNode("sleep", async (state, config) => {
    await sleep(state.ms, undefined, { signal: config.signal });
    return { slept: true };
  })
  .addEdge("__start__", "sleep")
  .compile();
