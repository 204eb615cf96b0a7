import {
  isExpired,
  itemScore,
  matchesAuthFilter,
  matchesStoreFilter,
  nowIso,
  storeAuthSubject,
  ttlExpiresAt,
  type IndexableItem,
  type IndexCursor,
  type Item,
  type ListNamespacesOptions,
  type NamespacePattern,
  type StoreGetOptions,
  type StorePutOptions,
  type StoreRepo,
  type SearchedItem,
  type StoreSearchOptions,
  type StoreVector,
} from "@agent-server/core";
import { compareValues, namespaceKey, page, wireObject, wireOut, type ItemRecord, type MemoryState } from "./state.js";

export class MemoryStoreRepo implements StoreRepo {
  readonly vectorSearch = "exact scan (JavaScript)";

  constructor(private readonly state: MemoryState) {}

  async put(namespace: string[], key: string, value: Record<string, unknown>, options?: StorePutOptions): Promise<void> {
    const stored = wireObject(value, {});
    const nsKey = namespaceKey(namespace);
    let items = this.state.items.get(nsKey);
    if (!items) this.state.items.set(nsKey, (items = new Map()));
    const now = nowIso();
    // An expired item is gone for every read: a put over it creates the item anew.
    const existing = this.live(items.get(key), now);
    const ttlMinutes = options?.ttl ?? null;
    items.set(key, {
      item: { namespace: [...namespace], key, value: stored, created_at: existing?.item.created_at ?? now, updated_at: now },
      seq: this.state.nextSeq(),
      ttlMinutes,
      expiresAt: ttlMinutes === null ? null : ttlExpiresAt(now, ttlMinutes),
      vectors: copyVectors(options?.vectors ?? []),
      index: options?.index === undefined || options.index === null ? null : options.index === false ? false : [...options.index],
    });
  }

  async getIndexIdentity(): Promise<string | null> {
    return this.state.indexIdentity;
  }

  async setIndexIdentity(identity: string | null): Promise<void> {
    this.state.indexIdentity = identity;
  }

  /** O(items) per batch: sorts every live item's (namespace, key) to find the ones after the cursor. */
  async scanIndexable(cursor: IndexCursor | null, limit: number): Promise<IndexableItem[]> {
    const now = nowIso();
    const after = cursor ? [namespaceKey(cursor.namespace), cursor.key] : null;
    const rows: Array<[string, string, ItemRecord]> = [];
    for (const [nsKey, items] of this.state.items) {
      for (const [key, record] of items) {
        if (isExpired(record.expiresAt, now)) continue;
        if (after && (compareValues(nsKey, after[0]) || compareValues(key, after[1]!)) <= 0) continue;
        rows.push([nsKey, key, record]);
      }
    }
    rows.sort((a, b) => compareValues(a[0], b[0]) || compareValues(a[1], b[1]));
    return rows
      .slice(0, Math.max(0, limit))
      .map(([, , r]) => ({ ...wireOut(r.item), index: r.index === false ? false : r.index && [...r.index] }));
  }

  async replaceVectors(namespace: string[], key: string, vectors: StoreVector[]): Promise<boolean> {
    const record = this.live(this.state.items.get(namespaceKey(namespace))?.get(key), nowIso());
    if (!record) return false;
    record.vectors = copyVectors(vectors);
    return true;
  }

  async get(namespace: string[], key: string, options?: StoreGetOptions): Promise<Item | null> {
    const now = nowIso();
    const record = this.live(this.state.items.get(namespaceKey(namespace))?.get(key), now);
    if (!record) return null;
    if (options?.refreshTtl) refresh(record, now);
    return wireOut(record.item);
  }

  /** Deletes at most `limit` expired items, soonest expiry first. O(items). */
  async sweepExpired(now: string, limit: number): Promise<number> {
    const expired: Array<[string, string, string]> = [];
    for (const [nsKey, items] of this.state.items) {
      for (const [key, record] of items) if (isExpired(record.expiresAt, now)) expired.push([record.expiresAt!, nsKey, key]);
    }
    expired.sort((a, b) => compareValues(a[0], b[0]));
    let deleted = 0;
    for (const [, nsKey, key] of expired.slice(0, Math.max(0, limit))) {
      const items = this.state.items.get(nsKey);
      if (!items?.delete(key)) continue;
      if (items.size === 0) this.state.items.delete(nsKey);
      deleted++;
    }
    return deleted;
  }

  private live(record: ItemRecord | undefined, now: string): ItemRecord | undefined {
    return record && !isExpired(record.expiresAt, now) ? record : undefined;
  }

  async delete(namespace: string[], key: string): Promise<boolean> {
    const nsKey = namespaceKey(namespace);
    const items = this.state.items.get(nsKey);
    if (!items?.delete(key)) return false;
    if (items.size === 0) this.state.items.delete(nsKey);
    return true;
  }

  /**
   * O(namespaces) prefix scan plus O(items under the prefix), then a sort of the matches; with a query,
   * O(items under the prefix × dims) to score them (an exact scan).
   */
  async search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<SearchedItem[]> {
    const now = nowIso();
    const matches: ItemRecord[] = [];
    const scores = new Map<ItemRecord, number>();
    const query = options?.query;
    for (const items of this.state.items.values()) {
      const first = items.values().next().value;
      if (!first || !startsWith(first.item.namespace, namespacePrefix)) continue;
      for (const record of items.values()) {
        if (isExpired(record.expiresAt, now)) continue;
        const { namespace, key, value } = record.item;
        if (!matchesStoreFilter(value, options?.filter)) continue;
        if (options?.authFilter && !matchesAuthFilter(storeAuthSubject(namespace, key, value), options.authFilter)) continue;
        if (query) {
          const score = itemScore(query, record.vectors);
          if (score === undefined) continue; // not indexed: not found by a query
          scores.set(record, score);
        }
        matches.push(record);
      }
    }
    const byUpdate = (a: ItemRecord, b: ItemRecord) => -compareValues(a.item.updated_at, b.item.updated_at) || b.seq - a.seq;
    matches.sort(query ? (a, b) => scores.get(b)! - scores.get(a)! || byUpdate(a, b) : byUpdate);
    const found = page(matches, options?.offset, options?.limit, 10);
    if (options?.refreshTtl) for (const record of found) refresh(record, now);
    return found.map((r) => (query ? { ...wireOut(r.item), score: scores.get(r)! } : wireOut(r.item)));
  }

  /** O(namespaces). */
  async listNamespaces(options?: ListNamespacesOptions): Promise<string[][]> {
    const seen = new Map<string, string[]>();
    const now = nowIso();
    for (const items of this.state.items.values()) {
      const first = items.values().next().value;
      if (!first || ![...items.values()].some((r) => !isExpired(r.expiresAt, now))) continue;
      const namespace = first.item.namespace;
      if (options?.prefix && !matchesPattern(namespace.slice(0, options.prefix.length), options.prefix)) continue;
      if (options?.suffix && !matchesPattern(namespace.slice(-options.suffix.length), options.suffix)) continue;
      if (options?.authFilter && !matchesAuthFilter(storeAuthSubject(namespace), options.authFilter)) continue;
      const truncated = options?.maxDepth !== undefined ? namespace.slice(0, options.maxDepth) : namespace;
      seen.set(namespaceKey(truncated), truncated);
    }
    const sorted = [...seen.values()].sort(compareNamespaces);
    return page(sorted, options?.offset, options?.limit, 100).map((ns) => [...ns]);
  }
}

function copyVectors(vectors: StoreVector[]): StoreVector[] {
  return vectors.map((v) => ({ field: v.field, vector: [...v.vector] }));
}

/** A read that refreshes: the item expires its TTL from now. */
function refresh(record: ItemRecord, now: string): void {
  if (record.ttlMinutes !== null) record.expiresAt = ttlExpiresAt(now, record.ttlMinutes);
}

function startsWith(namespace: string[], prefix: string[]): boolean {
  return prefix.length <= namespace.length && prefix.every((label, i) => namespace[i] === label);
}

function matchesPattern(labels: string[], pattern: NamespacePattern): boolean {
  return labels.length === pattern.length && pattern.every((p, i) => p === "*" || labels[i] === p);
}

/** Label by label; a namespace sorts before its own extensions. */
function compareNamespaces(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
