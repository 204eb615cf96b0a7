import type { RunAuthContext } from "@agent-server/engine";

/** The user agent-protocol's auth middleware established (`RequestAuth.user`), read structurally: interop must not import it. */
export interface StructuralAuthUser {
  identity?: unknown;
  permissions?: unknown;
  [key: string]: unknown;
}

/**
 * What run admission takes as `{ auth }` for this user (identity and permissions into the run's config),
 * as agent-protocol's `runAuthContext` builds it for HTTP runs; undefined without an authenticated user.
 */
export function runAuthOf(user: StructuralAuthUser | undefined): RunAuthContext | undefined {
  if (!user || typeof user.identity !== "string") return undefined;
  return { user: user as RunAuthContext["user"], permissions: Array.isArray(user.permissions) ? user.permissions.map(String) : [] };
}
