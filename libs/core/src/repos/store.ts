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
}

/**
 * The LangGraph store's items. `/store/items` and graphs (through `Storage.langgraphStore`) share it.
 * Namespace labels are non-empty and contain no ".", as LangGraph validates.
 */
export interface StoreRepo {
  /** Inserts or replaces; created_at survives a replace. */
  put(namespace: string[], key: string, value: Record<string, unknown>): Promise<void>;
  get(namespace: string[], key: string): Promise<Item | null>;
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
}
