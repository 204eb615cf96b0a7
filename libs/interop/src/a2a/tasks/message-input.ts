import type { AgentCard, Message, Part } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";

/**
 * What an A2A message carries for the graph, checked before anything is created (so a refused message
 * leaves no thread or run behind):
 * - text parts (joined by newlines) become one user message in `messages`;
 * - data parts must be JSON objects; they are merged (in order) into the input object;
 * - file parts (`raw` bytes or `url`) become LangChain v1 standard multimodal content blocks of that user
 *   message when the agent's card declares their media type (`declaredInputModes`); any other media type
 *   is refused with ContentTypeNotSupportedError (-32005).
 */
export interface MessageContent {
  text: string | undefined;
  data: Record<string, unknown> | undefined;
  /** The file parts, in order, as content blocks; empty when the message has none. */
  files: FileContentBlock[];
}

/**
 * A LangChain v1 standard multimodal content block (`ContentBlock.Multimodal.Standard` of
 * @langchain/core 1.x), written out here because interop does not depend on @langchain/core: the graph
 * receives it as plain JSON. `url` for a URL part, `data` (base64) for raw bytes; the part's filename
 * goes to `metadata.filename`, where LangChain's provider converters (OpenAI's file inputs) read it.
 */
export interface FileContentBlock {
  type: "image" | "audio" | "video" | "text-plain" | "file";
  mimeType: string;
  url?: string;
  data?: string;
  metadata?: { filename: string };
}

/** The media type of a file part that names none: nothing is inferred from its bytes, URL or filename. */
export const UNSPECIFIED_MEDIA_TYPE = "application/octet-stream";

/** The input modes an agent accepts: its card's `defaultInputModes` and every skill's `inputModes`. */
export function declaredInputModes(card: Pick<AgentCard, "defaultInputModes" | "skills">): string[] {
  return [...card.defaultInputModes, ...card.skills.flatMap((skill) => skill.inputModes)];
}

// Whether `mediaType` is one of the declared modes. Compared case-insensitively on `type/subtype`
// (parameters such as `;charset=utf-8` are ignored on both sides); a declared `type/*` accepts every
// subtype of `type`, `*/*` every media type.
export function acceptsMediaType(declared: readonly string[], mediaType: string): boolean {
  const wanted = essence(mediaType);
  if (!wanted) return false;
  const [type] = wanted.split("/");
  return declared.some((mode) => {
    const accepted = essence(mode);
    return accepted === "*/*" || accepted === wanted || accepted === `${type}/*`;
  });
}

export function messageContent(message: Message, inputModes: readonly string[]): MessageContent {
  const texts: string[] = [];
  const files: FileContentBlock[] = [];
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
        files.push(fileBlock(part, inputModes));
        break;
      default:
        throw new RequestMalformedError("a message part has no content");
    }
  }
  const text = texts.length > 0 ? texts.join("\n") : undefined;
  if (text === undefined && data === undefined && files.length === 0) {
    throw new RequestMalformedError("the message needs a text, data or file part");
  }
  return { text, data, files };
}

/**
 * The input of a run that starts a task: data merged into an object, text as a user message. With file
 * parts the message's content is a list of blocks, its text first (`{ type: "text", text }`), then the
 * files in order; without them it stays a plain string, as before.
 */
export function runInput(content: MessageContent): Record<string, unknown> {
  const message = userMessage(content);
  return { ...content.data, ...(message ? { messages: [message] } : {}) };
}

/**
 * The value a continuation resumes the graph's `interrupt()` with (`command: { resume }`): the text
 * itself for a text-only message; otherwise an object — the data parts merged, the text under `text`,
 * the file parts' content blocks under `files` (these two are set by the server and win over data keys
 * of the same name).
 */
export function resumeValue(content: MessageContent): unknown {
  if (content.data === undefined && content.files.length === 0) return content.text;
  return {
    ...content.data,
    ...(content.text !== undefined ? { text: content.text } : {}),
    ...(content.files.length > 0 ? { files: content.files } : {}),
  };
}

function userMessage(content: MessageContent): { role: "user"; content: unknown } | undefined {
  if (content.files.length === 0) return content.text !== undefined ? { role: "user", content: content.text } : undefined;
  const text = content.text !== undefined ? [{ type: "text", text: content.text }] : [];
  return { role: "user", content: [...text, ...content.files] };
}

/** A file part as a content block, or -32005 when the card does not declare its media type. */
function fileBlock(part: Part, inputModes: readonly string[]): FileContentBlock {
  const given = part.mediaType.trim();
  const mimeType = given || UNSPECIFIED_MEDIA_TYPE;
  if (!essence(mimeType)) throw new RequestMalformedError(`"${given}" is not a media type (type/subtype)`);
  if (!acceptsMediaType(inputModes, mimeType)) {
    throw new ContentTypeNotSupportedError(
      `file parts of media type "${mimeType}" are not accepted by this agent (it accepts: ${inputModes.join(", ") || "none"})`,
    );
  }
  const source = sourceOf(part);
  return {
    type: blockType(mimeType),
    mimeType,
    ...source,
    ...(part.filename ? { metadata: { filename: part.filename } } : {}),
  };
}

function sourceOf(part: Part): { url: string } | { data: string } {
  const content = part.content;
  if (content?.$case === "raw") return { data: Buffer.from(content.value).toString("base64") };
  if (content?.$case !== "url") throw new RequestMalformedError("a file part needs raw bytes or a url");
  // The server never fetches it (the graph or its model provider may): it only has to be a URL.
  if (!URL.canParse(content.value)) throw new RequestMalformedError(`a file part's url must be an absolute URL, got "${content.value}"`);
  return { url: content.value };
}

/** The standard block type for a media type: image, audio, video and text/plain have their own. */
function blockType(mimeType: string): FileContentBlock["type"] {
  const value = essence(mimeType);
  if (value === "text/plain") return "text-plain";
  const type = value.split("/")[0];
  return type === "image" || type === "audio" || type === "video" ? type : "file";
}

/** `type/subtype` of a media type, lowercased, without parameters; "" when it is not one. */
function essence(mediaType: string): string {
  const value = mediaType.split(";", 1)[0]!.trim().toLowerCase();
  return /^[^\s/]+\/[^\s/]+$/.test(value) ? value : "";
}
