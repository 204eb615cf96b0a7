import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { contextFromHeaders, recordError, SpanKind, startSpan, tracingEnabled, withSpan, markFailed } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";

/**
 * One server span per HTTP request, named by its route template (`POST /threads/:thread_id/runs`), with
 * the HTTP semantic conventions' attributes. A `traceparent` that came with the request is its parent, and
 * the span is active for the handler: a run admitted here stores it, so the run's trace continues the
 * caller's. With tracing off the middleware only passes the request on.
 */
export function tracingMiddleware(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!tracingEnabled()) return next();
    const method = c.req.method;
    const url = new URL(c.req.url);
    const parent = contextFromHeaders((name) => c.req.header(name));
    const userAgent = c.req.header("user-agent");
    const span = startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": method,
          "url.path": url.pathname,
          "url.scheme": url.protocol.replace(":", ""),
          "server.address": url.hostname,
          ...(url.port ? { "server.port": Number(url.port) } : {}),
          ...(userAgent ? { "user_agent.original": userAgent } : {}),
        },
      },
      parent,
    );
    const finish = () => {
      const route = matchedRoute(c);
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute("http.route", route);
      }
      const status = c.res.status;
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) markFailed(span, `HTTP ${status}`);
      span.end();
    };
    try {
      await withSpan(span, next, parent);
    } catch (error) {
      recordError(span, error);
      finish();
      throw error;
    }
    // A stream (SSE) is answered before it is sent: its span lasts until the body ends or the client goes.
    const body = c.res.body;
    if (body && c.res.headers.get("content-type")?.startsWith("text/event-stream")) {
      c.res = new Response(untilEnd(body, finish), c.res);
    } else {
      finish();
    }
  };
}

/** `body`, calling `onEnd` once when it has been read to its end, failed, or was cancelled by the reader. */
function untilEnd(body: ReadableStream<Uint8Array>, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
}

/** The template of the route that answered ("/threads/:thread_id"), or undefined (no route matched). */
function matchedRoute(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string | undefined {
  try {
    const path = routePath(c);
    return path && path !== "/*" && path !== "*" ? path : undefined;
  } catch {
    return undefined;
  }
}
