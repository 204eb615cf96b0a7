import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { A2AError, RequestMalformedError } from "@a2a-js/sdk/errors";
import { jsonDepthExceeds, MAX_JSON_DEPTH, storageFault, type StorageFault } from "@agent-server/core";

/**
 * Where the A2A adapter reports errors it does not show to clients. Pino-shaped (`logger.error(fields,
 * message)`), so the server passes its own logger; without one, console.error.
 */
export interface A2ALogger {
  error(fields: Record<string, unknown>, message: string): void;
  /** Problems in the project's own data (an assistant's `metadata.a2a`); `error` when absent. */
  warn?(fields: Record<string, unknown>, message: string): void;
}

export const consoleA2ALogger: A2ALogger = {
  error: (fields, message) => console.error(message, fields),
  warn: (fields, message) => console.warn(message, fields),
};

/** What clients see of an error that is not theirs: no exception text, no stack. */
export const INTERNAL_ERROR_MESSAGE = "Internal error";
/** What clients see when the SDK could not even decode their params (a TypeError inside `fromJSON`). */
export const INVALID_PARAMS_MESSAGE = "Invalid params: the request does not have the shape this method takes";

/** What clients see of a request nested beyond `MAX_JSON_DEPTH` (the LangGraph API's 422 says the same). */
export const TOO_DEEP_MESSAGE = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`;

/**
 * Refuses a request value nested beyond `MAX_JSON_DEPTH` as invalid params (-32602, HTTP 400, gRPC
 * INVALID_ARGUMENT), before the SDK's decoders and the run's input conversion recurse into it (the
 * conversion's own bound, a few levels deeper, would otherwise surface as an internal error). Iterative:
 * O(nodes of `value`) time, no stack.
 */
export function refuseDeepInput(value: unknown): void {
  if (jsonDepthExceeds(value)) throw new RequestMalformedError(TOO_DEEP_MESSAGE);
}

const INTERNAL_ERROR = -32603;
const INVALID_REQUEST = -32600;

/**
 * The storage fault behind an error of a request (the database unreachable, its disk full), logged as
 * one line: it is the infrastructure's, not a bug, and every binding answers it with its `detail` (JSON-RPC
 * -32603 with that message and `data`, HTTP+JSON 503/507, gRPC UNAVAILABLE / RESOURCE_EXHAUSTED).
 */
export function requestStorageFault(error: unknown, logger: A2ALogger, context: Record<string, unknown>): StorageFault | undefined {
  const fault = storageFault(error);
  if (!fault) return undefined;
  (logger.warn ?? logger.error).call(
    logger,
    { ...context, code: fault.code, err: error instanceof Error ? error.message : String(error) },
    fault.detail,
  );
  return fault;
}

/** The JSON-RPC error of a storage fault: the internal-error code, with a message and data that say what happened. */
export function storageFaultJsonRpcError(fault: StorageFault): { code: number; message: string; data: Record<string, unknown> } {
  return {
    code: INTERNAL_ERROR,
    message: fault.detail,
    data: {
      reason: fault.kind === "full" ? "STORAGE_FULL" : "STORAGE_UNAVAILABLE",
      code: fault.code,
      retryAfterSeconds: fault.retryAfterSeconds,
    },
  };
}

/**
 * An auth handler's denial (`HTTPException` of `@langchain/langgraph-sdk/auth` with a 4xx status), read
 * structurally: its message is the project's own message for the caller, not an internal error.
 */
export function requestDenial(error: unknown): { status: 401 | 403; message: string } | undefined {
  if (!(error instanceof Error) || error instanceof A2AError) return undefined;
  const status = (error as { status?: unknown }).status;
  if (status !== 401 && status !== 403) return undefined;
  return { status, message: error.message || (status === 401 ? "Unauthorized" : "Forbidden") };
}

/**
 * Errors of one A2A request, as the client may see them. The SDK's transport handlers decode params with
 * `fromJSON`/v0.3 translators that throw TypeErrors on shapes they do not expect (`parts: [null]`), and
 * answer every non-A2A error as -32603 with its raw text. The guard tells the two apart: an error before
 * our handler was entered is a params problem (-32602); an error after it is ours (-32603 "Internal error",
 * the real error logged). A2A errors (task not found, invalid params, ...) pass unchanged.
 */
export class RequestErrorGuard {
  private entered = false;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly logger: A2ALogger,
    private readonly context: Record<string, unknown>,
    /** The transport's own mapping of A2A errors to JSON-RPC error objects (v1.0 or v0.3). */
    private readonly mapError: (error: unknown) => { code: number; message: string; data?: unknown },
  ) {}

  /**
   * `handler` with every request method marked as entered, and its non-A2A failures recorded (the
   * transports only see their text). `getAgentCard` is not a request method: the v0.3 transport reads
   * the card before it decodes params.
   */
  wrap(handler: A2ARequestHandler): A2ARequestHandler {
    return new Proxy(handler, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== "function" || property === "getAgentCard") return value;
        return (...args: unknown[]) => {
          this.entered = true;
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (isAsyncGenerator(result)) return this.recordGenerator(result);
          if (result instanceof Promise) return result.catch((error: unknown) => this.record(error));
          return result;
        };
      },
    });
  }

  /** A JSON-RPC error object (as the SDK mapped it) as the client may see it, with the HTTP status to answer. */
  jsonRpcError(mapped: { code: number; message: string; data?: unknown }): { status: number; error: Record<string, unknown> } {
    if (mapped.code !== INTERNAL_ERROR) return { status: 200, error: mapped };
    if (!this.entered) return { status: 200, error: this.mapError(new RequestMalformedError(INVALID_PARAMS_MESSAGE)) };
    const cause = this.failure ? this.failure.error : new Error(mapped.message);
    this.failure = undefined;
    const denial = requestDenial(cause);
    if (denial) return { status: denial.status, error: { code: INVALID_REQUEST, message: denial.message } };
    const fault = requestStorageFault(cause, this.logger, this.context);
    if (fault) return { status: 200, error: storageFaultJsonRpcError(fault) };
    this.log(cause);
    return { status: 200, error: { code: INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE } };
  }

  /** Logs an unexpected error with the request's context (the client gets the generic message). */
  log(error: unknown): void {
    this.logger.error({ ...this.context, err: error }, "A2A request failed with an unexpected error");
  }

  private record(error: unknown): never {
    if (!(error instanceof A2AError)) this.failure = { error };
    throw error;
  }

  private async *recordGenerator<T>(events: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
    try {
      yield* events;
    } catch (error) {
      this.record(error);
    }
  }
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return (
    typeof value === "object" && value !== null && Symbol.asyncIterator in value && typeof (value as { next?: unknown }).next === "function"
  );
}
