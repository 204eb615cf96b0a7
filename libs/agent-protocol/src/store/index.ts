import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { matchesAuthFilter, storeAuthSubject, type AuthFilter, type Item as StoreItem } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";
import type { AuthAction } from "../auth/request-auth.js";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import {
  Item,
  NAMESPACE_LABEL_RULE,
  SearchItem,
  StoreDelete,
  StoreGetQuery,
  StoreListNamespaces,
  StorePut,
  StoreSearch,
} from "./schemas.js";

const tags = ["Store"];
const invalid = jsonResponse(ErrorDetail, "Invalid namespace, key or value");

/**
 * Authorizes a store action. The auth handler receives `{namespace, key, ...}` and may rewrite it (a
 * handler scoping every user to `[user, ...namespace]`); the route then acts on the rewritten value, as
 * the official server does. A filter the handler returns is matched against `storeAuthSubject` (the
 * item's value fields, its namespace and key): searches and listings return only matching items, and an
 * existing item that does not match is "not found" to get, put and delete.
 */
async function authorizeStore(
  c: Context<AppEnv>,
  action: AuthAction,
  value: Record<string, unknown>,
): Promise<{ value: Record<string, unknown>; filter: AuthFilter | undefined }> {
  const filter = await c.var.auth.authorize("store", action, value);
  return { value, filter };
}

function visible(item: StoreItem | null, filter: AuthFilter | undefined): boolean {
  return item === null || matchesAuthFilter(storeAuthSubject(item.namespace, item.key, item.value), filter);
}

function itemNotFound(): never {
  throw new HTTPException(404, { message: "Item not found" });
}

/** Re-checks a namespace an auth handler may have rewritten. */
function checkedNamespace(raw: unknown, field: string, options: { allowEmpty: boolean }): string[] {
  if (raw === undefined || raw === null) raw = [];
  if (
    !Array.isArray(raw) ||
    raw.some((label) => typeof label !== "string" || label === "" || label.includes(".") || label.includes("\u0000"))
  ) {
    throw new HTTPException(422, { message: `${field}: ${NAMESPACE_LABEL_RULE}` });
  }
  if (!options.allowEmpty && raw.length === 0) throw new HTTPException(422, { message: `${field}: namespace cannot be empty` });
  return raw as string[];
}

/** /store routes: the LangGraph store's items, shared with graphs (`config.store`). */
export const store = createRouter()
  .openapi(
    createRoute({
      method: "put",
      path: "/store/items",
      tags,
      summary: "Store or replace an item",
      request: { body: jsonBody(StorePut) },
      responses: { 204: { description: "Stored" }, 422: invalid },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { store } = c.var.deps.storage;
      // A driver without TTL sweeps refuses a TTL (as LangGraph's own stores do) rather than keep the item forever.
      if (body.ttl !== undefined && body.ttl !== null && !store.sweepExpired)
        throw new HTTPException(422, { message: "ttl: item TTLs are not supported by this server's storage driver" });
      // Absent: langgraph.json `store.ttl.default_ttl`; null: never expires.
      const ttl = body.ttl === undefined ? (c.var.deps.engine.storeTtl.defaultMinutes ?? null) : body.ttl;
      const { value, filter } = await authorizeStore(c, "put", { namespace: body.namespace, key: body.key, value: body.value });
      const namespace = checkedNamespace(value.namespace, "namespace", { allowEmpty: false });
      const item = { namespace, key: String(value.key), value: value.value as Record<string, unknown> };
      if (filter) {
        if (!visible(await store.get(namespace, item.key), filter)) itemNotFound();
        if (!matchesAuthFilter(storeAuthSubject(namespace, item.key, item.value), filter))
          throw new HTTPException(403, { message: "Not authorized" });
      }
      // langgraph.json `store.index`: the put's vectors (one embedding call), written with the item.
      const index = c.var.deps.engine.storeIndex;
      const vectors = index ? await index.vectorsFor(item.value, body.index) : undefined;
      await store.put(namespace, item.key, item.value, {
        ...(ttl !== null && store.sweepExpired ? { ttl } : {}),
        ...(body.index !== undefined ? { index: body.index } : {}),
        ...(vectors ? { vectors } : {}),
      });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/store/items",
      tags,
      summary: "Get an item (null when there is none, as the SDK expects; a namespace is required)",
      request: { query: StoreGetQuery },
      responses: { 200: jsonResponse(z.union([Item, z.null()]), "The item, or null"), 422: invalid },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const { value, filter } = await authorizeStore(c, "get", { namespace: query.namespace, key: query.key });
      const namespace = checkedNamespace(value.namespace, "namespace", { allowEmpty: false });
      const refreshTtl = query.refresh_ttl ?? c.var.deps.engine.storeTtl.refreshOnRead;
      const item = await c.var.deps.storage.store.get(namespace, String(value.key), refreshTtl ? { refreshTtl } : undefined);
      if (!visible(item, filter)) itemNotFound();
      return reply(c, item);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/store/items",
      tags,
      summary: "Delete an item (no error when there is none)",
      request: { body: jsonBody(StoreDelete) },
      responses: { 204: { description: "Deleted" }, 422: invalid },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { value, filter } = await authorizeStore(c, "delete", { namespace: body.namespace ?? [], key: body.key });
      const namespace = checkedNamespace(value.namespace, "namespace", { allowEmpty: true });
      const { store } = c.var.deps.storage;
      const key = String(value.key);
      if (filter) {
        const item = await store.get(namespace, key);
        if (!visible(item, filter)) itemNotFound();
        if (!item && !matchesAuthFilter(storeAuthSubject(namespace, key), filter))
          throw new HTTPException(403, { message: "Not authorized" });
      }
      await store.delete(namespace, key);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/store/items/search",
      tags,
      summary: "Search items under a namespace prefix, newest update first (with a query and store.index: most similar first)",
      request: { body: jsonBody(StoreSearch) },
      responses: {
        200: jsonResponse(z.object({ items: z.array(SearchItem) }), "Matching items"),
        409: jsonResponse(ErrorDetail, "store.index changed since the items were embedded: run `agent-server store reindex`"),
        422: invalid,
        502: jsonResponse(ErrorDetail, "The embedding model failed or answered vectors of the wrong size"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { value, filter } = await authorizeStore(c, "search", {
        namespace: body.namespace_prefix ?? [],
        filter: body.filter ?? undefined,
        limit: body.limit,
        offset: body.offset,
        query: body.query ?? undefined,
      });
      const prefix = checkedNamespace(value.namespace, "namespace_prefix", { allowEmpty: true });
      // A query ranks only with `store.index`; without it, it is ignored, as on the official servers.
      const index = c.var.deps.engine.storeIndex;
      const text = typeof value.query === "string" ? value.query : undefined; // as the auth handler left it
      const query = text && index ? await index.queryVector(text) : undefined;
      const items = await c.var.deps.storage.store.search(prefix, {
        filter: (value.filter as Record<string, unknown> | undefined) ?? undefined,
        authFilter: filter,
        limit: body.limit,
        offset: body.offset,
        ...((body.refresh_ttl ?? c.var.deps.engine.storeTtl.refreshOnRead) ? { refreshTtl: true } : {}),
        ...(query ? { query } : {}),
      });
      return reply(c, { items });
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/store/namespaces",
      tags,
      summary: "List namespaces matching a prefix and suffix",
      request: { body: jsonBody(StoreListNamespaces) },
      responses: { 200: jsonResponse(z.object({ namespaces: z.array(z.array(z.string())) }), "Namespaces"), 422: invalid },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { value, filter } = await authorizeStore(c, "list_namespaces", {
        namespace: body.prefix ?? undefined,
        suffix: body.suffix ?? undefined,
        max_depth: body.max_depth ?? undefined,
        limit: body.limit,
        offset: body.offset,
      });
      const prefix = value.namespace == null ? undefined : checkedNamespace(value.namespace, "prefix", { allowEmpty: true });
      const suffix = value.suffix == null ? undefined : checkedNamespace(value.suffix, "suffix", { allowEmpty: true });
      const namespaces = await c.var.deps.storage.store.listNamespaces({
        prefix,
        suffix,
        maxDepth: body.max_depth ?? undefined,
        authFilter: filter,
        limit: body.limit,
        offset: body.offset,
      });
      return reply(c, { namespaces });
    },
  );
