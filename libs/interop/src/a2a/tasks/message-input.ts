import type { Message } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";

/**
 * What an A2A message carries for the graph, checked before anything is created (so a refused message
 * leaves no thread or run behind):
 * - file parts (`raw` bytes or `url`) are refused with ContentTypeNotSupportedError (-32005): an
 *   assistant has no way yet to declare file input modes, so none is accepted;
 * - data parts must be JSON objects; they are merged (in order) into the input object;
 * - text parts (joined by newlines) become one user message in `messages`.
 */
export interface MessageContent {
  text: string | undefined;
  data: Record<string, unknown> | undefined;
}

export function messageContent(message: Message): MessageContent {
  const texts: string[] = [];
  let data: Record<string, unknown> | undefined;
  for (const part of message.parts) {
    const content = part.content;
    switch (content?.$case) {
      case "text":
        texts.push(content.value);
        break;
      case "data": {
        const value: unknown = content.value;
        if (!value || typeof value !== "object" || Array.isArray(value)) {
          throw new RequestMalformedError("a data part must hold a JSON object");
        }
        data = { ...data, ...(value as Record<string, unknown>) };
        break;
      }
      case "raw":
      case "url":
        throw new ContentTypeNotSupportedError(
          `file parts are not accepted by this agent (media type "${part.mediaType || "unspecified"}")`,
        );
      default:
        throw new RequestMalformedError("a message part has no content");
    }
  }
  const text = texts.length > 0 ? texts.join("\n") : undefined;
  if (text === undefined && data === undefined) throw new RequestMalformedError("the message needs a text or data part");
  return { text, data };
}

/** The input of a run that starts a task: data merged into an object, text as a user message. */
export function runInput(content: MessageContent): Record<string, unknown> {
  return {
    ...content.data,
    ...(content.text !== undefined ? { messages: [{ role: "user", content: content.text }] } : {}),
  };
}

/**
 * The value a continuation resumes the graph's `interrupt()` with (`command: { resume }`): the data
 * object when the message has data parts (its text, if any, under `text`), else the text itself.
 */
export function resumeValue(content: MessageContent): unknown {
  if (content.data === undefined) return content.text;
  return content.text !== undefined ? { ...content.data, text: content.text } : content.data;
}
