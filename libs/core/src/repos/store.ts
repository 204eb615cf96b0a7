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
}

export interface StorePutOptions {
  /** Minutes until the item expires (refreshed by reads that ask for it); null or absent: never. */
  ttl?: number | null;
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
  search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<Item[]>;
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
}
