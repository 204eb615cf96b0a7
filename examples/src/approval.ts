import { Annotation, interrupt, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  /** What asks to be approved, e.g. "deploy v2". */
  request: Annotation<string>(),
  /** The human's answer, given when the run is resumed. */
  decision: Annotation<string>(),
});

/**
 * Human in the loop: the run stops at interrupt() with a question and the thread waits ("interrupted")
 * until a new run resumes it with `command: { resume: "approved" }`; that answer becomes `decision`.
 */
export const graph = new StateGraph(State)
  .addNode("ask", (state) => {
    const decision = interrupt({ question: `Approve "${state.request}"?` }) as string;
    return { decision };
  })
  .addEdge("__start__", "ask")
  .compile();
