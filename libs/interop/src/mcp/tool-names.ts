/**
 * Tool names for assistants. MCP allows 1–128 characters of `A–Z a–z 0–9 _ - .`; LLM providers that
 * turn tools into function calls accept fewer (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`), and a tool name an
 * LLM cannot call is useless. So names keep to the narrower set: at most 64 characters of letters,
 * digits, `_` and `-`.
 */

export const MAX_TOOL_NAME_LENGTH = 64;

/** Length of the assistant-id suffix that tells apart assistants whose names collide. */
const SHORT_ID_LENGTH = 8;

/**
 * An assistant name as a tool name: every run of other characters becomes one `_`, `_` and `-` at
 * either end are dropped, and the result is cut to 64 characters; a name with nothing left is
 * "assistant".
 */
export function sanitizeToolName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .replace(/^[_-]+|[_-]+$/g, "")
    .slice(0, MAX_TOOL_NAME_LENGTH)
    .replace(/[_-]+$/, "");
  return cleaned || "assistant";
}

/**
 * Names for `assistants`, in their order: the first assistant to claim a name keeps it, a later one
 * whose name collides (also when it differs only in case: some clients fold case) gets `_` and the first
 * 8 hex digits of its id, or all 32 if those collide too. The order is what makes this deterministic:
 * the caller passes the assistants oldest first, so an existing tool keeps its name when an assistant
 * of the same name is created later.
 */
export function assignToolNames<T extends { assistant_id: string; name: string }>(
  assistants: readonly T[],
): Array<{ name: string; assistant: T }> {
  const taken = new Set<string>();
  return assistants.map((assistant) => {
    const base = sanitizeToolName(assistant.name);
    const hex = assistant.assistant_id.replace(/[^A-Za-z0-9]/g, "").toLowerCase();
    const candidates = [base, withSuffix(base, hex.slice(0, SHORT_ID_LENGTH)), withSuffix(base, hex)];
    let name = candidates.find((candidate) => !taken.has(candidate.toLowerCase()));
    for (let n = 2; name === undefined; n++) {
      const numbered = withSuffix(base, `${hex}_${n}`);
      if (!taken.has(numbered.toLowerCase())) name = numbered;
    }
    taken.add(name.toLowerCase());
    return { name, assistant };
  });
}

function withSuffix(base: string, suffix: string): string {
  const room = MAX_TOOL_NAME_LENGTH - suffix.length - 1;
  const head = room > 0 ? base.slice(0, room).replace(/[_-]+$/, "") : "";
  return head ? `${head}_${suffix}` : suffix.slice(0, MAX_TOOL_NAME_LENGTH);
}
