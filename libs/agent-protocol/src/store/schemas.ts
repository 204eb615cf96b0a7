import { z } from "@hono/zod-openapi";
import { MAX_INT32, text } from "../http/route-helpers.js";
import { TtlMinutes } from "../http/ttl-schemas.js";

/**
 * Shapes of /store, as `@langchain/langgraph-sdk` 1.15 sends them (client/store/index.js). Namespace
 * labels are validated as LangGraph does: non-empty, and no "." (GET joins the namespace with ".").
 */

export const NAMESPACE_LABEL_RULE = "namespace labels cannot be empty or contain periods";

const Label = text()
  .min(1, NAMESPACE_LABEL_RULE)
  .refine((label) => !label.includes("."), NAMESPACE_LABEL_RULE);

export const Namespace = z.array(Label).openapi("StoreNamespace", { description: "Namespace path, outermost label first." });

export const Item = z
  .object({
    namespace: z.array(z.string()),
    key: z.string(),
    value: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("StoreItem");

/** A found item; `score` (cosine similarity, higher is closer) when the search had a `query`. */
export const SearchItem = Item.extend({ score: z.number().optional() }).openapi("StoreSearchItem");

export const StorePut = z
  .object({
    namespace: Namespace.min(1, "namespace cannot be empty"),
    key: text().min(1),
    value: z.record(z.string(), z.unknown()),
    index: z
      .union([z.literal(false), z.array(text().min(1, "index paths cannot be empty"))], {
        error: "index must be false or an array of JSON paths",
      })
      .nullish()
      .describe(
        "Semantic search (langgraph.json `store.index`): false: not indexed; paths: the fields to embed; absent or null: `store.index.fields`.",
      ),
    ttl: TtlMinutes.nullish().describe(
      "Minutes until the item expires (reads that refresh push it out again); absent: langgraph.json `store.ttl.default_ttl`, else never; null: never.",
    ),
  })
  .openapi("StorePutItem");

export const StoreDelete = z.object({ namespace: Namespace.nullish(), key: text().min(1) }).openapi("StoreDeleteItem");

/**
 * No item is ever stored under the empty namespace (PUT refuses it), so a GET without one is a mistake:
 * answered 422, not with a `null` that reads like "not there yet". (The official JS server defaults the
 * namespace to [] and answers null.)
 */
const NAMESPACE_REQUIRED = "namespace is required (items are never stored under an empty namespace)";

export const StoreGetQuery = z.object({
  namespace: z
    .string({ error: NAMESPACE_REQUIRED })
    .transform((joined) => (joined ? joined.split(".") : []))
    .pipe(z.array(Label).min(1, NAMESPACE_REQUIRED))
    .openapi({ type: "string", description: 'Namespace labels joined with "." (as the SDK sends them).' }),
  key: text().min(1),
  refresh_ttl: z
    .enum(["true", "false", "True", "False", "1", "0"], { error: "refresh_ttl must be true or false" })
    .transform((flag) => flag === "true" || flag === "True" || flag === "1")
    .optional()
    .describe("Push the item's expiry out by its TTL (default: langgraph.json `store.ttl.refresh_on_read`, else true)."),
});

export const StoreSearch = z
  .object({
    namespace_prefix: Namespace.nullish(),
    filter: z.record(z.string(), z.unknown()).nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    query: z
      .string({ error: "query must be a string" })
      .nullish()
      .describe(
        "Ranks by similarity to this text (langgraph.json `store.index`; items carry `score`, unindexed items are left out); without `store.index`, ignored.",
      ),
    refresh_ttl: z
      .boolean({ error: "refresh_ttl must be true or false" })
      .nullish()
      .describe("Push the found items' expiry out by their TTL (default: langgraph.json `store.ttl.refresh_on_read`, else true)."),
  })
  .openapi("StoreSearchItems");

export const StoreListNamespaces = z
  .object({
    prefix: Namespace.nullish().describe('Leading labels; "*" matches any one label.'),
    suffix: Namespace.nullish().describe('Trailing labels; "*" matches any one label.'),
    max_depth: z.number().int().min(1).max(MAX_INT32).nullish(),
    limit: z.number().int().min(1).max(1000).default(100),
    offset: z.number().int().min(0).default(0),
  })
  .openapi("StoreListNamespaces");
