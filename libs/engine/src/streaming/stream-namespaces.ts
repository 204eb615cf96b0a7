import type { StreamEvent } from "./types.js";

/** Events of the run itself, not of one of its graphs: every namespace filter lets them through. */
const RUN_EVENTS = new Set(["metadata", "error", "end", "feedback"]);

/**
 * `streamNamespaces` of `@langchain/langgraph-sdk` (`?namespace=` on run streams and joins, repeated):
 * only the events of those namespaces, each without the subgraphs and subagents it starts. A namespace
 * is written as in event names, its segments joined by `|` (`tools:<task id>`, `a:1|b:2`); `""` is the
 * root graph. Undefined (no `namespace` parameter): every event.
 *
 * An event's namespace is what its name says (`updates|a:1` is of `a:1`, `updates` of the root), except
 * for events whose name never carries one although they come from any graph: chat model tokens of the
 * `messages` mode and the `events` mode's callbacks, which say in their metadata which task of which
 * graph they ran in (`langgraph_checkpoint_ns`). `messages/partial` and `messages/complete` follow the
 * `messages/metadata` event that introduced their message (a message nobody introduced is the root's),
 * so a replay is filtered as the live stream was. The filter is stateful: one per response.
 */
export function streamNamespaceFilter(namespaces: readonly string[] | undefined): ((event: StreamEvent) => boolean) | undefined {
  if (namespaces === undefined) return undefined;
  const wanted = new Set(namespaces);
  const messages = new Map<string, string>();
  return (event) => {
    const namespace = namespaceOf(event, messages);
    return namespace === null || wanted.has(namespace);
  };
}

/** The namespace of an event (null: the run's own), learning message namespaces on the way. */
function namespaceOf(event: StreamEvent, messages: Map<string, string>): string | null {
  const bar = event.event.indexOf("|");
  if (bar !== -1) return event.event.slice(bar + 1);
  if (RUN_EVENTS.has(event.event)) return null;
  if (event.event === "messages/metadata" && isRecord(event.data)) {
    let first: string | undefined;
    for (const [id, entry] of Object.entries(event.data)) {
      const namespace = graphOfTask(isRecord(entry) ? entry.metadata : undefined);
      messages.set(id, namespace);
      first ??= namespace;
    }
    return first ?? "";
  }
  if ((event.event === "messages/partial" || event.event === "messages/complete") && Array.isArray(event.data)) {
    for (const message of event.data) {
      const id = isRecord(message) && typeof message.id === "string" ? message.id : undefined;
      const namespace = id === undefined ? undefined : messages.get(id);
      if (namespace !== undefined) return namespace;
    }
    return "";
  }
  if (event.event === "events" && isRecord(event.data)) return graphOfTask(event.data.metadata);
  return "";
}

/**
 * The namespace of the graph a task ran in, from the task's own (`langgraph_checkpoint_ns`: the graph's
 * namespace, then `<node>:<task id>`). Outside any task (the root graph's own callbacks): the root.
 */
function graphOfTask(metadata: unknown): string {
  const own = isRecord(metadata) ? metadata.langgraph_checkpoint_ns : undefined;
  if (typeof own !== "string" || own === "") return "";
  const bar = own.lastIndexOf("|");
  return bar === -1 ? "" : own.slice(0, bar);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
