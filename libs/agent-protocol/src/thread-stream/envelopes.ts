import { HTTPException } from "hono/http-exception";
import { ConflictError, InvalidInputError, NotFoundError, WireSerializationError } from "@agent-server/core";
import { clientError } from "../http/errors.js";

/** The protocol's error codes (`@langchain/protocol` `ErrorCode`). */
export type ProtocolErrorCode =
  | "invalid_argument"
  | "unknown_command"
  | "unknown_error"
  | "no_such_run"
  | "no_such_subscription"
  | "no_such_namespace"
  | "no_such_interrupt"
  | "no_such_checkpoint"
  | "permission_denied"
  | "not_supported";

/** A command as it arrives: `{ id, method, params }`. */
export interface ProtocolCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

export interface SuccessResponse {
  type: "success";
  id: number;
  result: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

export interface ErrorResponse {
  type: "error";
  id: number | null;
  error: ProtocolErrorCode;
  message: string;
}

export type CommandResponse = SuccessResponse | ErrorResponse;

/** A command's refusal in the protocol's own terms; thrown by handlers, answered as an error envelope. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function success(id: number, result: Record<string, unknown>, meta?: Record<string, unknown>): SuccessResponse {
  return { type: "success", id, result, ...(meta ? { meta } : {}) };
}

export function failure(id: number | null, code: ProtocolErrorCode, message: string): ErrorResponse {
  return { type: "error", id, error: code, message };
}

/**
 * Any error a command handler threw, as the error envelope the client gets. Auth refusals keep their
 * meaning (`permission_denied`); a thread the caller may not see reads as missing; bad input and missing
 * things are `invalid_argument` with their message; anything unexpected is logged and answered
 * `unknown_error` without its text (as the REST API answers a 500).
 */
export function errorEnvelope(id: number | null, error: unknown): ErrorResponse {
  if (error instanceof ProtocolError) return failure(id, error.code, error.message);
  if (error instanceof HTTPException && error.status === 403) return failure(id, "permission_denied", error.message);
  if (
    error instanceof HTTPException ||
    error instanceof NotFoundError ||
    error instanceof ConflictError ||
    error instanceof InvalidInputError ||
    error instanceof WireSerializationError
  ) {
    const { status, detail } = clientError(error);
    if (status < 500) return failure(id, "invalid_argument", detail);
  }
  return failure(id, "unknown_error", clientError(error).detail);
}
