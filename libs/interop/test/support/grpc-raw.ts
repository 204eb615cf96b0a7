import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import * as grpc from "@grpc/grpc-js";

/**
 * Raw A2A gRPC calls for hostile-input tests and the fuzz: request bytes the SDK's client would never
 * encode (its encoder recurses, so it cannot even build a Struct thousands of levels deep), sent as is.
 * Field numbers are those of `lf.a2a.v1` (the SDK's generated decoders) and google.protobuf.Struct.
 */

/** Where `deepSendMessageRequest` puts its deep value. */
export type DeepPlace = "data part" | "message metadata" | "request metadata";

/**
 * A google.protobuf.Value nested `depth` levels: `{"a": {"a": ... 1}}` (Struct in Struct) or `[[...[]]]`
 * (ListValue in ListValue). Encoded iteratively: the writer's forks are an explicit stack.
 */
export function deepValue(depth: number, kind: "object" | "array" = "object"): Uint8Array {
  const writer = new BinaryWriter();
  let forks = 0;
  for (let level = 0; level < depth; level++) {
    if (kind === "array") {
      writer.tag(6, WireType.LengthDelimited).fork(); // Value.list_value
      forks++;
      if (level < depth - 1) {
        writer.tag(1, WireType.LengthDelimited).fork(); // ListValue.values: one Value
        forks++;
      }
      continue;
    }
    writer.tag(5, WireType.LengthDelimited).fork(); // Value.struct_value
    writer.tag(1, WireType.LengthDelimited).fork(); // Struct.fields: one map entry
    writer.tag(1, WireType.LengthDelimited).string("a"); // its key
    writer.tag(2, WireType.LengthDelimited).fork(); // its value: a Value
    forks += 3;
  }
  if (kind === "object") writer.tag(2, WireType.Bit64).double(1); // the innermost Value.number_value
  for (let i = 0; i < forks; i++) writer.join();
  return writer.finish();
}

/** A google.protobuf.Struct `{"a": <deepValue(depth - 1)>}`: `depth` levels of objects. */
export function deepStruct(depth: number): Uint8Array {
  const writer = new BinaryWriter();
  writer.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string("a");
  if (depth > 1) writer.tag(2, WireType.LengthDelimited).bytes(deepValue(depth - 1));
  else writer.tag(2, WireType.LengthDelimited).fork().tag(2, WireType.Bit64).double(1).join();
  return writer.join().finish();
}

/**
 * A SendMessageRequest for a new task with one text part, and a value `depth` levels deep at `place`
 * (metadata is a Struct, so always objects there; a data part may be either kind).
 */
export function deepSendMessageRequest(depth: number, place: DeepPlace, kind: "object" | "array" = "object"): Uint8Array {
  const message = new BinaryWriter();
  message.tag(1, WireType.LengthDelimited).string(crypto.randomUUID()); // message_id
  message.tag(4, WireType.Varint).int32(1); // role: ROLE_USER
  message.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string("deep").join(); // a text part
  if (place === "data part")
    message.tag(5, WireType.LengthDelimited).fork().tag(4, WireType.LengthDelimited).bytes(deepValue(depth, kind)).join();
  if (place === "message metadata") message.tag(6, WireType.LengthDelimited).bytes(deepStruct(depth));
  const request = new BinaryWriter();
  request.tag(2, WireType.LengthDelimited).bytes(message.finish());
  if (place === "request metadata") request.tag(4, WireType.LengthDelimited).bytes(deepStruct(depth));
  return request.finish();
}

/** How a raw call ended: the gRPC status code (0: OK), its details, and the messages a stream sent. */
export interface RawGrpcAnswer {
  code: number;
  details: string;
  messages?: number;
}

/**
 * One call of `lf.a2a.v1.A2AService/<method>` with `bytes` as the request message and `metadata`
 * (`a2a-version: 1.0` unless given; an empty value leaves its key out), unary or server-streaming (`stream`: read to its end), on a fresh
 * channel closed afterwards. Never throws; a deadline past `timeoutMs` is DEADLINE_EXCEEDED.
 */
export function rawGrpcCall(
  target: string,
  method: string,
  bytes: Uint8Array,
  metadata: Record<string, string> = {},
  options: { stream?: boolean; timeoutMs?: number } = {},
): Promise<RawGrpcAnswer> {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const meta = new grpc.Metadata();
  for (const [key, value] of Object.entries({ "a2a-version": "1.0", ...metadata })) if (value !== "") meta.set(key, value);
  const path = `/lf.a2a.v1.A2AService/${method}`;
  const identity = (buffer: Buffer) => buffer;
  const callOptions = { deadline: Date.now() + (options.timeoutMs ?? 10_000) };
  return new Promise((resolve) => {
    const done = (answer: RawGrpcAnswer) => {
      client.close();
      resolve(answer);
    };
    if (!options.stream) {
      client.makeUnaryRequest(path, identity, identity, Buffer.from(bytes), meta, callOptions, (error) =>
        done(error ? { code: error.code, details: error.details } : { code: grpc.status.OK, details: "" }),
      );
      return;
    }
    let messages = 0;
    const call = client.makeServerStreamRequest(path, identity, identity, Buffer.from(bytes), meta, callOptions);
    call.on("data", () => messages++);
    call.on("error", () => undefined); // the status below says the same
    call.on("status", (status: grpc.StatusObject) => done({ code: status.code, details: status.details, messages }));
  });
}
