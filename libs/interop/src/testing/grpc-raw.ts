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
 * A google.protobuf.Struct `{"a": {"a": ... 1}}` nested `depth` levels, encoded iteratively (the writer's
 * forks are an explicit stack).
 */
export function deepStruct(depth: number): Uint8Array {
  const writer = new BinaryWriter();
  let forks = 0;
  for (let level = 0; level < depth; level++) {
    writer.tag(1, WireType.LengthDelimited).fork(); // Struct.fields: one map entry
    writer.tag(1, WireType.LengthDelimited).string("a"); // its key
    writer.tag(2, WireType.LengthDelimited).fork(); // its value: a Value
    forks += 2;
    if (level < depth - 1) {
      writer.tag(5, WireType.LengthDelimited).fork(); // Value.struct_value
      forks++;
    }
  }
  writer.tag(2, WireType.Bit64).double(1); // the innermost Value.number_value
  for (let i = 0; i < forks; i++) writer.join();
  return writer.finish();
}

/** A SendMessageRequest for a new task with one text part, and a Struct `depth` levels deep at `place`. */
export function deepSendMessageRequest(depth: number, place: DeepPlace): Uint8Array {
  const struct = deepStruct(depth);
  const message = new BinaryWriter();
  message.tag(1, WireType.LengthDelimited).string(crypto.randomUUID()); // message_id
  message.tag(4, WireType.Varint).int32(1); // role: ROLE_USER
  message.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string("deep").join(); // a text part
  if (place === "data part") {
    // Part.data is a Value: its struct_value.
    message.tag(5, WireType.LengthDelimited).fork().tag(4, WireType.LengthDelimited).fork();
    message.tag(5, WireType.LengthDelimited).bytes(struct).join().join();
  }
  if (place === "message metadata") message.tag(6, WireType.LengthDelimited).bytes(struct);
  const request = new BinaryWriter();
  request.tag(2, WireType.LengthDelimited).bytes(message.finish());
  if (place === "request metadata") request.tag(4, WireType.LengthDelimited).bytes(struct);
  return request.finish();
}

/** How a raw call ended: the gRPC status code (0: OK) and its details. */
export interface RawGrpcAnswer {
  code: number;
  details: string;
}

/**
 * One unary call of `lf.a2a.v1.A2AService/<method>` with `bytes` as the request message and `metadata`
 * (`a2a-version: 1.0` unless given), on a fresh channel closed afterwards. Never throws.
 */
export function rawGrpcCall(
  target: string,
  method: string,
  bytes: Uint8Array,
  metadata: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<RawGrpcAnswer> {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const meta = new grpc.Metadata();
  for (const [key, value] of Object.entries({ "a2a-version": "1.0", ...metadata })) meta.set(key, value);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/lf.a2a.v1.A2AService/${method}`,
      (request: Buffer) => request,
      (response: Buffer) => response,
      Buffer.from(bytes),
      meta,
      { deadline: Date.now() + timeoutMs },
      (error) => {
        client.close();
        resolve(error ? { code: error.code, details: error.details } : { code: grpc.status.OK, details: "" });
      },
    );
  });
}
