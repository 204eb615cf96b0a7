import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, FetchHandler, UserHttpApp } from "../app-env.js";

/**
 * Mounts the user's routes after authentication and before the core routers, as the official server
 * does: a user route wins over a core route of the same path, and custom routes are authenticated like
 * every other. A Hono app's routes join our router; a bare fetch handler is asked first and its 404 falls
 * through to the API (with the body still unread: it gets a clone).
 */
export function mountUserApp(app: OpenAPIHono<AppEnv>, user: UserHttpApp): void {
  if (typeof user === "object" && "routes" in user && Array.isArray(user.routes)) {
    app.route("/", user as unknown as OpenAPIHono<AppEnv>);
    return;
  }
  const userFetch: FetchHandler = typeof user === "function" ? user : (request) => user.fetch(request);
  app.use(async (c, next) => {
    const response = await userFetch(c.req.raw.clone());
    if (response.status !== 404) return response;
    await next();
  });
}

/**
 * Whether a Hono app among the user's routes answers `method path` itself. Routes the server registers
 * ahead of the user's (`/metrics`, outside auth) step aside for it; a bare fetch handler cannot be asked
 * without a request, so it never shadows them.
 */
export function userAppDeclares(user: UserHttpApp, method: string, path: string): boolean {
  if (typeof user !== "object" || !("routes" in user) || !Array.isArray(user.routes)) return false;
  return (user.routes as { method?: unknown; path?: unknown }[]).some(
    (route) => route.path === path && (route.method === method || route.method === "ALL"),
  );
}
