import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps, AppEnv } from "./app-env.js";
import { authMiddleware } from "./auth/middleware.js";
import { bodyLimitMiddleware } from "./http/body-limit.js";
import { corsMiddleware } from "./http/cors.js";
import { errorResponse } from "./http/errors.js";
import { tracingMiddleware } from "./http/tracing.js";
import { mountUserApp, userAppDeclares } from "./http/user-app.js";
import { createRouter } from "./http/router.js";
import { assistants } from "./assistants/index.js";
import { crons } from "./crons/index.js";
import { internal } from "./internal/index.js";
import { meta } from "./meta/index.js";
import { METRICS_PATH, metricsHandler, requestMetrics } from "./metrics/index.js";
import { runs } from "./runs/index.js";
import { store } from "./store/index.js";
import { threadStream } from "./thread-stream/index.js";
import { threads } from "./threads/index.js";
import { uiRoutes } from "./ui/routes.js";

/**
 * The LangGraph-compatible HTTP API over an engine and its storage. Each feature is a router in its own
 * folder; they are mounted here in one place, and /openapi.json is generated from their route schemas.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = createRouter();
  app.onError(errorResponse);
  app.notFound((c) => c.json({ detail: `Not found: ${c.req.method} ${c.req.path}` }, 404));
  // Outermost: the request's span covers everything after it, errors and refusals too.
  app.use(tracingMiddleware());
  if (deps.metrics) app.use(requestMetrics(deps.metrics));
  // Then: preflights are answered before auth, and every later answer (errors too) carries the headers.
  app.use(corsMiddleware(deps.cors));
  app.use(async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  // Before auth: an oversized body is refused before any handler (the user's authenticate) reads it.
  app.use(bodyLimitMiddleware(deps.maxBodyBytes));
  // Registered before auth (which it then never reaches), unless metrics are configured to be authenticated.
  // A project's own `GET /metrics` (http.app) wins, as its routes win over every core route.
  const metricsEndpoint = deps.httpApp && userAppDeclares(deps.httpApp, "GET", METRICS_PATH) ? undefined : deps.metrics;
  if (metricsEndpoint && !metricsEndpoint.authenticated) app.get(METRICS_PATH, metricsHandler(metricsEndpoint));
  app.use(authMiddleware(deps.auth));
  if (metricsEndpoint?.authenticated) app.get(METRICS_PATH, metricsHandler(metricsEndpoint));
  if (deps.httpApp) mountUserApp(app, deps.httpApp);

  app.route("/", meta);
  // Crons before runs: "/runs/crons" must not be read as a run id.
  app.route("/", crons);
  app.route("/", assistants);
  app.route("/", threads);
  app.route("/", threadStream);
  app.route("/", runs);
  app.route("/", store);
  if (deps.dev) app.route("/", internal);
  if (deps.ui) app.route("/", uiRoutes(deps.ui));
  for (const build of deps.extraRoutes ?? []) app.route("/", build(deps));

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "agent-server",
      version: deps.version,
      description: "LangGraph-compatible Agent Protocol API (assistants, threads, runs, crons, store).",
    },
  });
  return app;
}
