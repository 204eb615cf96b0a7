import type { JsonSchema } from "@agent-server/engine";

/**
 * What a LangChain message in a graph's input may be, as LangGraph's messages reducer takes it: a string
 * (a user message) or an object with the text (or content blocks) in `content` and who says it in
 * `role` (user, assistant, system, tool) or `type` (human, ai, system, tool).
 */
export const MESSAGE_LIKE_SCHEMA: JsonSchema = Object.freeze({
  description:
    'A chat message: {"role": "user", "content": "..."} (role user, assistant, system or tool; or type human, ai, system or tool), or a string (a user message).',
  anyOf: [
    { type: "string" },
    {
      type: "object",
      properties: {
        role: { type: "string" },
        type: { type: "string" },
        content: { anyOf: [{ type: "string" }, { type: "array", items: { type: "object" } }] },
        name: { type: "string" },
        id: { type: "string" },
        tool_call_id: { type: "string" },
      },
      required: ["content"],
    },
  ],
});

/** Definitions of LangChain's message class as TypeScript source extraction names them (`BaseMessage<...>`). */
const MESSAGE_DEFINITION = /^BaseMessage(<.*>)?$/;

/**
 * A tool input schema in which LangChain messages are described as what a client may send.
 *
 * Read from a graph's TypeScript source (an `Annotation.Root` / `MessagesAnnotation` state), `messages`
 * refers to a `BaseMessage<...>` definition that lists only `RemoveMessage` (the official server reports
 * the same). Checked as it stands it would refuse `{"type": "human", ...}`, and shown to an LLM it asks
 * for messages that delete others. Such definitions become MESSAGE_LIKE_SCHEMA here, and definitions
 * that nothing refers to any more are dropped (a message class drags in dozens). Other schemas are
 * returned as they are.
 */
export function withMessageLikeDefinitions(schema: JsonSchema): JsonSchema {
  const key = "definitions" in schema ? "definitions" : "$defs" in schema ? "$defs" : undefined;
  const definitions = key ? (schema[key] as Record<string, unknown> | undefined) : undefined;
  if (!key || !definitions || !Object.keys(definitions).some((name) => MESSAGE_DEFINITION.test(name))) return schema;
  const replaced = Object.fromEntries(
    Object.entries(definitions).map(([name, definition]) => [name, MESSAGE_DEFINITION.test(name) ? MESSAGE_LIKE_SCHEMA : definition]),
  );
  const { [key]: _dropped, ...root } = schema;
  const prefix = `#/${key}/`;
  const reachable = new Set<string>();
  const pending = refsIn(root, prefix);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (reachable.has(name) || !(name in replaced)) continue;
    reachable.add(name);
    pending.push(...refsIn(replaced[name], prefix));
  }
  const kept = Object.fromEntries(Object.entries(replaced).filter(([name]) => reachable.has(name)));
  return Object.keys(kept).length > 0 ? { ...root, [key]: kept } : root;
}

/** Names of the definitions `value` refers to (`$ref: "#/definitions/<name>"`), anywhere inside it. */
function refsIn(value: unknown, prefix: string): string[] {
  const found: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        if (key === "$ref" && typeof child === "string" && child.startsWith(prefix)) found.push(child.slice(prefix.length));
        else visit(child);
      }
    }
  };
  visit(value);
  return found;
}
