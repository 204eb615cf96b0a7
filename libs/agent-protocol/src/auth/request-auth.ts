import type { AuthFilter } from "@agent-server/core";
import type { RunAuthContext } from "@agent-server/engine";

/** Resources and actions as `@langchain/langgraph-sdk/auth` names them (`.on("threads:create", ...)`). */
export type AuthResource = "assistants" | "threads" | "crons" | "store";
export type AuthAction = "create" | "read" | "update" | "delete" | "search" | "create_run" | "put" | "get" | "list_namespaces";

export interface AuthUser {
  identity: string;
  permissions: string[];
  is_authenticated: boolean;
  display_name?: string;
  [key: string]: unknown;
}

/**
 * The authenticated caller of one request. Every read and write of assistants, threads (and through
 * them runs), crons and store items calls `authorize` first:
 * - it throws a 403 `HTTPException` when the handler denies the action (or the status of an
 *   `HTTPException` the handler throws); routes let it propagate;
 * - it may change `value` in place (a handler adding `metadata.owner` on create), and the route then
 *   uses the changed value;
 * - it returns a metadata filter that scopes what the caller may see: reads of an object whose
 *   metadata does not match it answer 404 (`matchesAuthFilter` in core), searches and counts pass it
 *   to the repository as `filter`. Runs use their thread's metadata.
 * Nothing in a request body or header can widen it: the user comes only from the project's
 * `authenticate(request)` (see middleware.ts), the filter only from its handlers.
 */
export interface RequestAuth {
  /** Undefined when the server runs without custom auth. */
  readonly user: AuthUser | undefined;
  /** True only for `openAccess`: every `authorize` allows and filters nothing, so callers may skip reads made for it. */
  readonly open?: boolean;
  authorize(resource: AuthResource, action: AuthAction, value: object): Promise<AuthFilter | undefined>;
}

/** No custom auth configured: everyone may do everything, nothing is filtered. */
export const openAccess: RequestAuth = {
  user: undefined,
  open: true,
  authorize: async () => undefined,
};

/**
 * What the runs routes pass to the engine's admission (`{ auth }`), which writes it into the run's
 * `config.configurable` as `langgraph_auth_user`, `langgraph_auth_user_id` and
 * `langgraph_auth_permissions`, over anything the request's config says. Undefined without custom auth.
 */
export function runAuthContext(auth: RequestAuth): RunAuthContext | undefined {
  const user = auth.user;
  if (!user) return undefined;
  return { user, permissions: [...user.permissions] };
}
