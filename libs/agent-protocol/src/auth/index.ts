/** Custom auth (langgraph.json `auth.path`): the per-request RequestAuth and how it is built. */
export { openAccess, runAuthContext, type RequestAuth, type AuthUser, type AuthResource, type AuthAction } from "./request-auth.js";
export { authMiddleware, requestAuthenticator, AUTH_EXEMPT_PATHS, isAuthExempt } from "./middleware.js";
export { loadAuth } from "./load-auth.js";
export { isAuthInstance, readAuthHandlers, authenticatesRequests, AUTH_EVENTS } from "./auth-instance.js";
export { validateAuthFilter } from "./authorize.js";
