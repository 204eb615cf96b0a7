import { Annotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";

const State = Annotation.Root({
  /** What to look for, and under which namespace (default ["facts"]). */
  query: Annotation<string>,
  namespace: Annotation<string[] | undefined>,
  /** The best matches, most similar first. */
  found: Annotation<Array<{ key: string; text: unknown; score: number | undefined }>>,
});

/**
 * Recalls the facts closest to `query` from the store the server gives graphs: `store.search` with a
 * query ranks by langgraph.json `store.index` (the same vectors `/store/items/search` uses).
 */
export const graph = new StateGraph(State)
  .addNode("recall", async (state, config: LangGraphRunnableConfig) => {
    if (!config.store) throw new Error("no store: run this graph on a server");
    const items = await config.store.search(state.namespace ?? ["facts"], { query: state.query, limit: 3 });
    return { found: items.map((item) => ({ key: item.key, text: item.value.text, score: item.score })) };
  })
  .addEdge("__start__", "recall")
  .compile();
