import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

type HeadersInit = ConstructorParameters<typeof Headers>[0];

/**
 * Turning what user auth code throws into the API's `{ detail }` error responses.
 * An `HTTPException` (the SDK's, or hono's) keeps its status, message and headers (e.g. WWW-Authenticate),
 * as in the official server; the SDK's class may come from another copy of the package, so it is
 * recognised by shape (a numeric `status` plus `headers`, or hono's `getResponse`).
 */

interface UserHttpError {
  status: number;
  message: string;
  headers?: HeadersInit;
}

export function asUserHttpError(error: unknown): UserHttpError | undefined {
  if (error == null || typeof error !== "object") return undefined;
  const candidate = error as { status?: unknown; headers?: unknown; getResponse?: unknown; message?: unknown };
  if (typeof candidate.status !== "number") return undefined;
  if (!("headers" in candidate) && typeof candidate.getResponse !== "function") return undefined;
  const headers = candidate.headers != null && typeof candidate.headers === "object" ? (candidate.headers as HeadersInit) : undefined;
  return { status: candidate.status, message: typeof candidate.message === "string" ? candidate.message : "", headers };
}

/** node:assert failures in a handler mean "not allowed", as Python's server treats AssertionError. */
export function isAssertionError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AssertionError" || (error as { code?: unknown }).code === "ERR_ASSERTION");
}

/**
 * An `HTTPException` whose response is `{ detail }` with the given status and headers. A status that is
 * not a 4xx/5xx error (a handler throwing `HTTPException(200)`) cannot let the request through: it
 * becomes `fallbackStatus`.
 */
export function authHttpException(status: number, detail: string, fallbackStatus: 401 | 403, headers?: HeadersInit): HTTPException {
  const code = Number.isInteger(status) && status >= 400 && status <= 599 ? status : fallbackStatus;
  const responseHeaders = new Headers(safeHeaders(headers));
  responseHeaders.set("content-type", "application/json");
  const res = new Response(JSON.stringify({ detail: detail || defaultDetail(code) }), { status: code, headers: responseHeaders });
  return new HTTPException(code as ContentfulStatusCode, { message: detail || defaultDetail(code), res });
}

function safeHeaders(headers: HeadersInit | undefined): HeadersInit | undefined {
  if (headers === undefined) return undefined;
  try {
    return new Headers(headers);
  } catch {
    // Headers a handler built wrongly must not turn a clean 401/403 into a 500.
    return undefined;
  }
}

function defaultDetail(status: number): string {
  if (status === 401) return "Unauthorized";
  if (status === 403) return "Forbidden";
  if (status === 404) return "Not Found";
  return `HTTP ${status}`;
}
