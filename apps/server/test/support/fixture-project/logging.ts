// A graph written for the official server: it calls getLogger() at import and inside a node.
import { getLogger } from "@langchain/langgraph-sdk/logging";
import { Annotation, StateGraph } from "@langchain/langgraph";
const logger = getLogger();
logger.info("graph module loaded");
const State = Annotation.Root({ n: Annotation<number> });
export const graph = new StateGraph(State)
  .addNode("log", (state) => {
    getLogger().warn("inside the node", { n: state.n });
    getLogger().info({ message: "as an info object", step: "log" });
    return { n: state.n + 1 };
  })
  .addEdge("__start__", "log")
  .compile();
