import fc from "fast-check";
import { deepSendMessageRequest, type DeepPlace } from "@agent-server/interop/testing/grpc-raw";
import { deepNesting, jsonObject, RawJson, type Labeled } from "./hostile-values.js";

/**
 * Deep and wide input for the A2A targets. A data part nested 5,000 levels once went through the SDK's
 * decoders and reached the run's input conversion, which answered -32603 (issue 25): these shapes sit
 * inside an otherwise valid message, where a hostile top-level value never gets.
 */
export const BULK_SHAPES: [label: string, json: RawJson][] = [
  ["depth 5000 objects", deepNesting(5_000, "object")],
  ["depth 5000 arrays", deepNesting(5_000, "array")],
  ["depth 513 objects", deepNesting(513, "object")],
  ["20000 keys", new RawJson(`{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`)],
  ["20000 items", new RawJson(`[${"1,".repeat(19_999)}1]`)],
];

/** Where a bulk value goes: inside the message, beside it, or as the whole params/body. */
export type BulkPlace = DeepPlace | "part metadata" | "body";
export const BULK_PLACES: BulkPlace[] = ["data part", "message metadata", "request metadata", "part metadata", "body"];

/**
 * SendMessage params (v1.0 JSON, or v0.3 with `kind`s) with `value` at `place`; "body" is the value itself.
 * Ids are fresh: a bulk message always starts a new task.
 */
export function bulkSendParams(legacy: boolean, value: RawJson, place: BulkPlace): unknown {
  if (place === "body") return value;
  const text = legacy ? { kind: "text", text: "bulk" } : { text: "bulk" };
  const parts: unknown[] = [place === "part metadata" ? { ...text, metadata: value } : text];
  if (place === "data part")
    parts.push(
      legacy
        ? jsonObject([
            ["kind", "data"],
            ["data", value],
          ])
        : jsonObject([["data", value]]),
    );
  const message = jsonObject([
    ...(legacy ? ([["kind", "message"]] as [string, unknown][]) : []),
    ["messageId", crypto.randomUUID()],
    ["role", legacy ? "user" : "ROLE_USER"],
    ["parts", parts],
    ...(place === "message metadata" ? ([["metadata", value]] as [string, unknown][]) : []),
  ]);
  return jsonObject([["message", message], ...(place === "request metadata" ? ([["metadata", value]] as [string, unknown][]) : [])]);
}

/** A bulk shape at a bulk place, as SendMessage params of one protocol version. */
export function bulkSend(legacy: boolean): fc.Arbitrary<Labeled<unknown> & { isRaw?: boolean; raw?: string }> {
  return fc.tuple(fc.constantFrom(...BULK_SHAPES), fc.constantFrom(...BULK_PLACES)).map(([[label, value], place]) => ({
    label: `${place}=${label}`,
    value: bulkSendParams(legacy, value, place),
  }));
}

/** The deep gRPC messages: a SendMessageRequest with a 5,000-deep (or just too deep) value at each place. */
export const GRPC_DEEP_SHAPES: [label: string, bytes: () => Uint8Array][] = [
  ...(["data part", "message metadata", "request metadata"] as const).flatMap((place) => [
    [`${place}=depth 5000 objects`, () => deepSendMessageRequest(5_000, place)] as [string, () => Uint8Array],
    [`${place}=depth 513 objects`, () => deepSendMessageRequest(513, place)] as [string, () => Uint8Array],
  ]),
  ["data part=depth 5000 arrays", () => deepSendMessageRequest(5_000, "data part", "array")],
];
