import { isGraphBubbleUp, isGraphDrained } from "@langchain/langgraph";
import { recordError, SpanKind, startSpan, type Context, type Span } from "@agent-server/core";

/**
 * Node spans (`node <name>`) from LangGraph's own `tasks` stream mode, for a run whose graph is called
 * without LangChain callbacks: a task about to run opens its node's span, the task's result closes it
 * (with its error, if it failed). Only the root graph's tasks are streamed, so a subgraph's nodes make
 * no span of their own here; and no model or tool spans, which only callbacks can see.
 */
export class TaskSpans {
  /** Task id -> its open span. Emptied as tasks end, and by `end()`. */
  private readonly open = new Map<string, Span>();

  constructor(private readonly root: Context) {}

  /** One chunk of the `tasks` mode: `{ id, name, input, triggers }` to start, `{ id, name, result, error }` to end. */
  observe(chunk: unknown): void {
    if (chunk === null || typeof chunk !== "object") return;
    const task = chunk as { id?: unknown; name?: unknown; result?: unknown; error?: unknown };
    if (typeof task.id !== "string" || typeof task.name !== "string") return;
    if (!("result" in task)) {
      const span = startSpan(`node ${task.name}`, { kind: SpanKind.INTERNAL, attributes: { "langgraph.node": task.name } }, this.root);
      this.open.set(task.id, span);
      return;
    }
    const span = this.open.get(task.id);
    if (!span) return;
    this.open.delete(task.id);
    if (task.error != null) recordError(span, task.error);
    span.end();
  }

  /** The graph's stream ended: tasks still open end with it (with its error, unless an interrupt or a drain). */
  end(error?: unknown): void {
    for (const span of this.open.values()) {
      if (error !== undefined && !isGraphBubbleUp(error) && !isGraphDrained(error)) recordError(span, error);
      span.end();
    }
    this.open.clear();
  }
}
