import type { DefaultValues } from "../model.js";

/**
 * The values a run's stored result keeps (`RunResult.values`): the run's final values, with a `messages`
 * list cut to the run's own turn — from its last human message on. The thread's checkpoints keep the
 * whole conversation; a result that kept it too would grow with every turn (a 1,000-turn context would
 * store the conversation 1,000 times over, and every task read would carry all of it).
 *
 * A resumed turn (an answer to an interrupt) has no human message of its own: it keeps the turn it
 * resumes, from that turn's human message. A `messages` list with no human message is kept whole.
 * O(messages) from the end, reading each message's type only.
 */
export function turnValues(values: DefaultValues): DefaultValues {
  const messages = values.messages;
  if (!Array.isArray(messages)) return values;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isHumanMessage(messages[i])) return i === 0 ? values : { ...values, messages: messages.slice(i) };
  }
  return values;
}

/** A LangChain message instance, its dict (`type`), an OpenAI-style dict (`role`), or its serialized form. */
function isHumanMessage(message: unknown): boolean {
  if (message === null || typeof message !== "object") return false;
  const m = message as { getType?: () => string; _getType?: () => string; type?: unknown; role?: unknown; id?: unknown; lc?: unknown };
  if (typeof m.getType === "function") return m.getType() === "human";
  if (typeof m._getType === "function") return m._getType() === "human";
  if (m.lc === 1 && Array.isArray(m.id)) return m.id[m.id.length - 1] === "HumanMessage";
  return m.type === "human" || m.role === "user" || m.role === "human";
}
