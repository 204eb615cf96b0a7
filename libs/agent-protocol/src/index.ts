export { createApp } from "./app.js";
export type { AppDeps, AppEnv, HttpMetrics, UserHttpApp } from "./app-env.js";
export { listen, type RunningServer } from "./server.js";
export type { RequestAuth, AuthUser, AuthResource, AuthAction } from "./auth/request-auth.js";
export { loadAuth, authMiddleware, authenticatesRequests, requestAuthenticator } from "./auth/index.js";
export { runAuthContext } from "./auth/request-auth.js";
export { API_EXPOSED_HEADERS, type HttpCorsConfig } from "./http/cors.js";
export { bundleUi, type UiAsset, type UiBundles, type UiBundleOptions } from "./ui/bundle.js";
export { UNMATCHED_ROUTE, METRICS_PATH } from "./metrics/index.js";
