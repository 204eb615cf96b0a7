/**
 * Imported through tsx's `tsImport`, this module lives in the graph module's own loader namespace (tsx
 * gives every `tsImport` call separate module instances). Whatever it imports later shares the graph's
 * instances, e.g. the `@langchain/langgraph/zod` registry that holds the graph's `withLangGraph` metadata.
 */
export function importInScope(url: string): Promise<unknown> {
  return import(url);
}
