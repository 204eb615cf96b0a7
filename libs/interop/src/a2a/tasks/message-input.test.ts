import { describe, expect, it } from "vitest";
import { Message } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";
import type { Assistant } from "@agent-server/core";
import { agentCardFor } from "../agent-card.js";
import { acceptsMediaType, declaredInputModes, messageContent, resumeValue, runInput } from "./message-input.js";

/** File parts in, as the decoders hand them over (`Message.fromJSON` of the v1.0 JSON a client sends). */
function message(parts: unknown[]): Message {
  return Message.fromJSON({ messageId: "m", role: "ROLE_USER", parts });
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const assistant: Assistant = {
  assistant_id: "a",
  graph_id: "echo",
  name: "echo",
  description: null,
  config: {},
  context: {},
  metadata: {},
  version: 1,
  created_at: "2020-01-01T00:00:00Z",
  updated_at: "2020-01-01T00:00:00Z",
} as unknown as Assistant;

describe("declared input modes", () => {
  it("are the card's defaultInputModes plus every skill's inputModes", () => {
    const card = agentCardFor(assistant, "http://host/a2a/echo");
    expect(declaredInputModes(card)).toEqual(["text/plain", "text/plain"]);
    card.defaultInputModes = ["text/plain", "image/png"];
    card.skills[0]!.inputModes = ["application/pdf"];
    expect(declaredInputModes(card)).toEqual(["text/plain", "image/png", "application/pdf"]);
  });

  it("match media types case-insensitively, without parameters, with type/* and */* wildcards", () => {
    expect(acceptsMediaType(["image/png"], "IMAGE/PNG")).toBe(true);
    expect(acceptsMediaType(["Image/PNG; q=1"], "image/png")).toBe(true);
    expect(acceptsMediaType(["text/plain"], "text/plain; charset=utf-8")).toBe(true);
    expect(acceptsMediaType(["image/png"], "image/jpeg")).toBe(false);
    expect(acceptsMediaType(["image/*"], "image/jpeg")).toBe(true);
    expect(acceptsMediaType(["image/*"], "application/pdf")).toBe(false);
    expect(acceptsMediaType(["*/*"], "application/pdf")).toBe(true);
    expect(acceptsMediaType(["*/*"], "not a media type")).toBe(false);
    expect(acceptsMediaType([], "image/png")).toBe(false);
  });
});

describe("file parts as LangChain content blocks", () => {
  it("raw bytes become base64 data, a URL a url; the filename goes to metadata; block types follow the media type", () => {
    const content = messageContent(
      message([
        { text: "look" },
        { raw: PNG.toString("base64"), mediaType: "image/png", filename: "pixel.png" },
        { url: "https://example.com/a.pdf", mediaType: "application/pdf" },
        { url: "https://example.com/a.mp3", mediaType: "audio/mpeg" },
        { url: "https://example.com/a.mp4", mediaType: "video/mp4" },
        { raw: Buffer.from("hello").toString("base64"), mediaType: "text/plain", filename: "hello.txt" },
      ]),
      ["*/*"],
    );
    expect(content.files).toEqual([
      { type: "image", mimeType: "image/png", data: PNG.toString("base64"), metadata: { filename: "pixel.png" } },
      { type: "file", mimeType: "application/pdf", url: "https://example.com/a.pdf" },
      { type: "audio", mimeType: "audio/mpeg", url: "https://example.com/a.mp3" },
      { type: "video", mimeType: "video/mp4", url: "https://example.com/a.mp4" },
      { type: "text-plain", mimeType: "text/plain", data: Buffer.from("hello").toString("base64"), metadata: { filename: "hello.txt" } },
    ]);
    expect(runInput(content)).toEqual({ messages: [{ role: "user", content: [{ type: "text", text: "look" }, ...content.files] }] });
  });

  it("a part without a media type is application/octet-stream: accepted only by */* or application/*", () => {
    const part = { url: "https://example.com/blob" };
    expect(messageContent(message([part]), ["application/*"]).files).toEqual([
      { type: "file", mimeType: "application/octet-stream", url: "https://example.com/blob" },
    ]);
    expect(() => messageContent(message([part]), ["image/*", "text/plain"])).toThrow(ContentTypeNotSupportedError);
  });

  it("refuses media types the card does not declare with ContentTypeNotSupported (-32005), naming what it accepts", () => {
    const modes = ["text/plain", "image/png"];
    expect(() => messageContent(message([{ text: "x" }, { url: "https://example.com/a.jpg", mediaType: "image/jpeg" }]), modes)).toThrow(
      /image\/jpeg.*text\/plain, image\/png/,
    );
    const error = (() => {
      try {
        messageContent(message([{ raw: "AAAA", mediaType: "application/pdf" }]), modes);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ContentTypeNotSupportedError);
  });

  it("bad file parts are invalid params: a media type that is not type/subtype, a URL that is not absolute", () => {
    expect(() => messageContent(message([{ url: "https://example.com/a", mediaType: "png" }]), ["*/*"])).toThrow(RequestMalformedError);
    expect(() => messageContent(message([{ url: "/relative/a.png", mediaType: "image/png" }]), ["*/*"])).toThrow(RequestMalformedError);
  });

  it("a file-only message is a message; text-only and data-only ones stay as before", () => {
    const only = messageContent(message([{ url: "https://example.com/a.png", mediaType: "image/png" }]), ["image/png"]);
    expect(runInput(only)).toEqual({
      messages: [{ role: "user", content: [{ type: "image", mimeType: "image/png", url: "https://example.com/a.png" }] }],
    });
    expect(runInput(messageContent(message([{ text: "hi" }]), []))).toEqual({ messages: [{ role: "user", content: "hi" }] });
    expect(runInput(messageContent(message([{ data: { a: 1 } }]), []))).toEqual({ a: 1 });
    expect(() => messageContent(message([]), ["*/*"])).toThrow(/text, data or file part/);
  });

  it("a continuation resumes with the text alone, or an object with data, text and the files' blocks", () => {
    expect(resumeValue(messageContent(message([{ text: "yes" }]), []))).toBe("yes");
    expect(resumeValue(messageContent(message([{ data: { decision: "ok" } }, { text: "why" }]), []))).toEqual({
      decision: "ok",
      text: "why",
    });
    const withFile = messageContent(
      message([{ text: "signed" }, { data: { files: "mine", n: 1 } }, { raw: PNG.toString("base64"), mediaType: "image/png" }]),
      ["image/png"],
    );
    expect(resumeValue(withFile)).toEqual({
      n: 1,
      text: "signed",
      files: [{ type: "image", mimeType: "image/png", data: PNG.toString("base64") }],
    });
  });
});
