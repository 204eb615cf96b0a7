import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { HttpCorsConfig } from "@agent-server/engine";

export type { HttpCorsConfig };

/**
 * Response headers `@langchain/langgraph-sdk` reads, so a page on another origin must be allowed to read
 * them: `Content-Location` (the created run, for `onRunCreated`) and the pagination headers of searches.
 */
export const API_EXPOSED_HEADERS: readonly string[] = ["Content-Location", "X-Pagination-Total", "X-Pagination-Next"];

const ALL_METHODS = ["GET", "HEAD", "PUT", "POST", "DELETE", "PATCH"];

/**
 * CORS for every route (API, A2A, custom `http.app` routes), built on `hono/cors`. It must run before
 * authentication: a preflight carries no credentials, and custom auth would otherwise answer it 401.
 * Headers it sets before the route runs are kept on whatever the route or the error handler answers
 * (JSON errors, SSE streams), because Hono merges them into the final response.
 *
 * Without `http.cors` it behaves as the official servers do by default: any origin, every method, the
 * requested headers, and the SDK's headers exposed. With `http.cors`, only what it allows.
 */
export function corsMiddleware(config: HttpCorsConfig | undefined): MiddlewareHandler {
  if (!config) return cors({ origin: "*", exposeHeaders: [...API_EXPOSED_HEADERS] });

  const listed = new Set(config.allow_origins ?? []);
  const anyOrigin = listed.has("*");
  // Anchored: "https://.*\\.example\\.com" must not let "https://a.example.com.evil.io" through.
  const pattern = config.allow_origin_regex ? new RegExp(`^(?:${config.allow_origin_regex})$`) : undefined;
  const credentials = config.allow_credentials === true;
  const methods = config.allow_methods;
  const headers = config.allow_headers;
  return cors({
    origin: (origin) => {
      if (!origin) return null;
      // A browser refuses `*` on a credentialed request: name the caller's origin instead.
      if (anyOrigin) return credentials ? origin : "*";
      if (listed.has(origin) || pattern?.test(origin)) return origin;
      return null;
    },
    allowMethods: !methods || methods.includes("*") ? ALL_METHODS : methods,
    // An empty list makes hono/cors echo Access-Control-Request-Headers, which is what "*" means here
    // (a literal "*" is no wildcard for credentialed requests).
    allowHeaders: !headers || headers.includes("*") ? [] : headers,
    credentials,
    exposeHeaders: withApiHeaders(config.expose_headers ?? []),
    maxAge: config.max_age,
  });
}

function withApiHeaders(configured: string[]): string[] {
  const seen = new Set(configured.map((h) => h.toLowerCase()));
  return [...configured, ...API_EXPOSED_HEADERS.filter((h) => !seen.has(h.toLowerCase()))];
}
