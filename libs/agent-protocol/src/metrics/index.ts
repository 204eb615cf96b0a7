import type { Context, Handler, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv, HttpMetrics } from "../app-env.js";

/** The route label of requests no route matched (404s, methods a path does not serve, a user fetch handler's answers). */
export const UNMATCHED_ROUTE = "unmatched";

export const METRICS_PATH = "/metrics";

/** Times every request; first in the chain, so answers of CORS, body limit and auth are counted too. */
export function requestMetrics(metrics: HttpMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // Hono's onError has set the response by now; an error it did not turn into one counts as 500.
      const status = c.res?.status ?? 500;
      metrics.observeRequest(routeTemplate(c), c.req.method, status, performance.now() - started);
    }
  };
}

/** GET /metrics. */
export function metricsHandler(metrics: HttpMetrics): Handler<AppEnv> {
  return async () => {
    const { contentType, body } = await metrics.scrape();
    return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  };
}

/**
 * The template of the route that answered: the handler Hono dispatched last, or when a middleware
 * answered (auth's 401, a preflight), the first route after it that would have. Middlewares are
 * registered on "*" (or "/*" in a mounted router) and are not routes.
 */
function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = Math.max(0, c.req.routeIndex); i < routes.length; i += 1) {
    const path = routes[i].path;
    if (path !== "*" && path !== "/*") return path;
  }
  return UNMATCHED_ROUTE;
}
