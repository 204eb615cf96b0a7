import { rawGrpcCall } from "@agent-server/interop/testing/grpc-raw";
import type { FuzzRequest, FuzzResponse } from "./http-exchange.js";

/**
 * The HTTP status a gRPC status stands for (google.rpc.Code's mapping), so the oracles read a gRPC answer
 * as they read any other: INTERNAL, UNKNOWN and DATA_LOSS are the 5xx a bad input must never produce.
 */
const HTTP_STATUS: Record<number, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

/**
 * Sends a generated gRPC call to the server's gRPC port and answers it as a `FuzzResponse`: the status as
 * HTTP, the body `{"code", "details"}` (the oracles look for internal text in `details`). Never throws.
 */
export async function sendGrpc(target: string, req: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  const call = req.grpc!;
  const answer = await rawGrpcCall(target, call.method, call.bytes, call.metadata, { stream: call.stream, timeoutMs });
  const timedOut = answer.code === 4;
  return {
    status: timedOut ? 0 : (HTTP_STATUS[answer.code] ?? 500),
    contentType: "application/grpc",
    body: JSON.stringify({ code: answer.code, details: answer.details }),
    timedOut,
  };
}
