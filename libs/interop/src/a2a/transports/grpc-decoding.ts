import type { ServiceDefinition } from "@grpc/grpc-js";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { refuseDeepInput } from "../request-errors.js";

/** Marks a request message its decoder could not read (see `decodingTolerant`). */
const UNDECODABLE = Symbol("undecodable A2A gRPC request");

/**
 * `service` with request decoders that never throw. grpc-js answers a throwing decoder with INTERNAL
 * "Error deserializing request", before any handler runs; but bytes that are not the method's message
 * (truncated, wrong wire types, a Struct nested past the decoder's stack) are the caller's mistake. An
 * undecodable message becomes an empty one carrying `UNDECODABLE`, which `refuseBadRequest` answers as
 * INVALID_ARGUMENT once the caller is authenticated (an unauthenticated caller still learns nothing).
 */
export function decodingTolerant(service: ServiceDefinition): ServiceDefinition {
  const methods = Object.entries(service).map(([name, method]) => [
    name,
    {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch {
          return { tenant: "", [UNDECODABLE]: true };
        }
      },
    },
  ]);
  return Object.fromEntries(methods) as ServiceDefinition;
}

/**
 * Invalid params (INVALID_ARGUMENT) for a request that could not be decoded, or whose Struct values
 * (metadata, data parts) nest beyond `MAX_JSON_DEPTH`, as the JSON bindings refuse them before decoding.
 */
export function refuseBadRequest(params: object): void {
  if (UNDECODABLE in params) throw new RequestMalformedError("the request is not a valid protobuf message of this method");
  refuseDeepInput(params);
}
