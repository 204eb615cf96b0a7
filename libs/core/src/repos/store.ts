import type { AuthFilter } from "../filters.js";
import type { Item } from "../model.js";

/** A namespace path for `listNamespaces`; "*" matches any one label. */
export type NamespacePattern = string[];

export interface ListNamespacesOptions {
  prefix?: NamespacePattern;
  suffix?: NamespacePattern;
  maxDepth?: number;
  limit?: number;
  offset?: number;
  /** An auth handler's filter, matched against `storeAuthSubject(namespace)` of each full namespace. */
  authFilter?: AuthFilter;
}

export interface StoreSearchOptions {
  /** Matched against the item's value (`matchesStoreFilter`). */
  filter?: Record<string, unknown>;
  /** An auth handler's filter, matched against `storeAuthSubject(namespace, key, value)`. */
  authFilter?: AuthFilter;
  limit?: number;
  offset?: number;
  /** Pushes the expiry of the returned items that have a TTL out by their TTL, from now. */
  refreshTtl?: boolean;
  /**
   * Semantic search (drivers with the vector methods): a unit query vector (rules/store-index.ts
   * `unitVector`). Items are ranked by their best field's cosine similarity, highest first (ties: newest
   * update first), after every other condition; items without vectors are left out; each carries `score`.
   */
  query?: number[];
}

/** One embedded field of an item: its path (rules/store-index.ts `textsToEmbed`) and its unit vector. */
export interface StoreVector {
  field: string;
  vector: number[];
}

/** An item found by a search; `score` when the search had a `query`. */
export type SearchedItem = Item & { score?: number };

/** An item as the re-index reads it: with its put's `index` choice (null: the configured fields). */
export type IndexableItem = Item & { index: false | string[] | null };

/** Where a re-index batch starts: after this item, in the driver's own (namespace, key) order. */
export interface IndexCursor {
  namespace: string[];
  key: string;
}

export interface StorePutOptions {
  /** Minutes until the item expires (refreshed by reads that ask for it); null or absent: never. */
  ttl?: number | null;
  /**
   * Drivers with the vector methods: the item's vectors, replacing the ones it had (absent or empty: none).
   * A put always drops the item's previous vectors, so a replaced value is never found by its old text.
   */
  vectors?: StoreVector[];
  /** The put's `index` choice, kept for a re-index: false (never indexed), paths, or null/absent (the configured fields). */
  index?: false | string[] | null;
}

export interface StoreGetOptions {
  /** Pushes the item's expiry out by its TTL, from now (when it has one). */
  refreshTtl?: boolean;
}

/**
 * The LangGraph store's items. `/store/items` and graphs (through `Storage.langgraphStore`) share it.
 * Namespace labels are non-empty and contain no ".", as LangGraph validates.
 */
export interface StoreRepo {
  /** Inserts or replaces; created_at survives a replace; the TTL is the put's (a replace without one clears it). */
  put(namespace: string[], key: string, value: Record<string, unknown>, options?: StorePutOptions): Promise<void>;
  /** Expired items (rules/ttl.ts `isExpired`) are not there for any read, swept or not. */
  get(namespace: string[], key: string, options?: StoreGetOptions): Promise<Item | null>;
  delete(namespace: string[], key: string): Promise<boolean>;
  /**
   * Items whose namespace starts with `namespacePrefix`, whose value matches `filter`
   * (`matchesStoreFilter`) and which match `authFilter`, newest update first. limit defaults to 10.
   */
  search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<SearchedItem[]>;
  /**
   * Distinct namespaces matching prefix, suffix and `authFilter`, each truncated to `maxDepth` labels when given
   * (then de-duplicated), sorted lexicographically by label. limit defaults to 100.
   */
  listNamespaces(options?: ListNamespacesOptions): Promise<string[][]>;
  /**
   * Optional (TTL sweeps): deletes at most `limit` items expired at `now`, soonest expiry first; returns
   * how many this call deleted. Concurrent calls (other processes) never delete the same item twice.
   */
  sweepExpired?(now: string, limit: number): Promise<number>;

  /*
   * Optional, all four or none (conformance part `vectors`): semantic search. A driver with them stores
   * `StorePutOptions.vectors` with the item (deleting or expiring the item deletes them) and ranks
   * `StoreSearchOptions.query`; without them both options are ignored.
   */

  /** How this driver scores queries (e.g. "sqlite-vec", "exact scan (SQL over real[])"), for the start log. */
  readonly vectorSearch?: string;
  /** The recorded index identity (rules/store-index.ts `storeIndexIdentity`), or null. */
  getIndexIdentity?(): Promise<string | null>;
  /** Records the identity (null: forgets it). */
  setIndexIdentity?(identity: string | null): Promise<void>;
  /** Live items after `cursor` (null: from the start), at most `limit`, in the driver's (namespace, key) order. */
  scanIndexable?(cursor: IndexCursor | null, limit: number): Promise<IndexableItem[]>;
  /** Replaces an existing item's vectors without touching the item; false (nothing written) when it is not there. */
  replaceVectors?(namespace: string[], key: string, vectors: StoreVector[]): Promise<boolean>;
}

/**
 * langgraph.json `store.index` at work (the engine's `StoreIndex`): embeds values for puts and queries
 * for searches, so the API and graphs (`RepoBackedStore`) write and rank the same vectors.
 */
export interface StoreIndexer {
  /** The vectors of a put (one embedding call; none for `index: false` or a value without the fields' texts). */
  vectorsFor(value: Record<string, unknown>, index?: false | string[] | null): Promise<StoreVector[]>;
  /** The unit vector of a query; rejects (ConflictError) while the database was indexed with other settings. */
  queryVector(query: string): Promise<number[]>;
}
