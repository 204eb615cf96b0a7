import type { Context, MiddlewareHandler } from "hono";
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
 * CORS for every route (API, A2A, custom `http.app` routes). It must run before authentication: a
 * preflight carries no credentials, and custom auth would otherwise answer it 401. Preflights are
 * `hono/cors`'s; on any other request the headers are set on whatever the route or the error handler
 * answered (JSON errors, SSE streams), once it has. (`hono/cors` sets them on `c.res` before the route
 * runs, which makes Hono rebuild every route's answer around its body as a stream: @hono/node-server
 * then pipes the body instead of writing the string it was given.)
 *
 * Without `http.cors` it behaves as the official servers do by default: any origin, every method, the
 * requested headers, and the SDK's headers exposed. With `http.cors`, only what it allows.
 */
export function corsMiddleware(config: HttpCorsConfig | undefined): MiddlewareHandler {
  if (!config) return corsOf({ origin: "*", exposeHeaders: [...API_EXPOSED_HEADERS] });

  const listed = new Set(config.allow_origins ?? []);
  const anyOrigin = listed.has("*");
  // Anchored: "https://.*\\.example\\.com" must not let "https://a.example.com.evil.io" through.
  const pattern = config.allow_origin_regex ? new RegExp(`^(?:${config.allow_origin_regex})$`) : undefined;
  const credentials = config.allow_credentials === true;
  const methods = config.allow_methods;
  const headers = config.allow_headers;
  return corsOf({
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

interface CorsOptions {
  origin: "*" | ((origin: string) => string | null);
  allowMethods?: string[];
  allowHeaders?: string[];
  credentials?: boolean;
  exposeHeaders: string[];
  maxAge?: number;
}

function corsOf(options: CorsOptions): MiddlewareHandler {
  const preflight = cors(options);
  const exposed = options.exposeHeaders.length ? options.exposeHeaders.join(",") : undefined;
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    const allowed = options.origin === "*" ? "*" : options.origin(c.req.header("origin") ?? "");
    const headers = mutableHeaders(c);
    if (allowed) headers.set("Access-Control-Allow-Origin", allowed);
    if (options.credentials) headers.set("Access-Control-Allow-Credentials", "true");
    if (exposed) headers.set("Access-Control-Expose-Headers", exposed);
    if (options.origin !== "*") headers.append("Vary", "Origin");
  };
}

const PROBE = "x-agent-server-cors";

/** The answer's headers, the answer copied first when they are immutable (a fetched or redirect Response). */
function mutableHeaders(c: Context): Headers {
  try {
    c.res.headers.set(PROBE, "");
    c.res.headers.delete(PROBE);
  } catch {
    c.res = new Response(c.res.body, c.res);
  }
  return c.res.headers;
}

function withApiHeaders(configured: string[]): string[] {
  const seen = new Set(configured.map((h) => h.toLowerCase()));
  return [...configured, ...API_EXPOSED_HEADERS.filter((h) => !seen.has(h.toLowerCase()))];
}
