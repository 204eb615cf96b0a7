import {
  BaseStore,
  type Item as LangGraphItem,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import type { Item } from "./model.js";
import type { StoreIndexer, StoreRepo } from "./repos/store.js";

/**
 * The LangGraph `BaseStore` that graphs receive, over a driver's `StoreRepo`, so an item a graph writes
 * is the item `/store/items` returns and vice versa. Semantic search (`query`) ranks through `index`
 * (langgraph.json `store.index`) when given; without it a query is ignored and the filter still applies,
 * as in LangGraph's own stores without an index.
 */
export class RepoBackedStore extends BaseStore {
  /**
   * `ttl`: langgraph.json `store.ttl` for graphs' own puts and reads (LangGraph's JS store operations carry
   * no TTL): `defaultTtl` minutes for every put, and reads refresh an item's TTL when `refreshOnRead`.
   */
  constructor(
    private readonly repo: StoreRepo,
    private readonly ttl: { defaultTtl?: number; refreshOnRead?: boolean } = {},
    private readonly index?: StoreIndexer,
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.run(op));
    return results as OperationResults<Op>;
  }

  private async run(op: Operation): Promise<unknown> {
    if ("namespacePrefix" in op) {
      const search = op as SearchOperation;
      const query = search.query && this.index ? await this.index.queryVector(search.query) : undefined;
      const items = await this.repo.search(search.namespacePrefix, {
        filter: search.filter,
        limit: search.limit,
        offset: search.offset,
        ...(this.ttl.refreshOnRead ? { refreshTtl: true } : {}),
        ...(query ? { query } : {}),
      });
      return items.map((item) => (item.score === undefined ? toLangGraphItem(item) : { ...toLangGraphItem(item), score: item.score }));
    }
    if ("value" in op) {
      const put = op as PutOperation;
      if (put.value === null) await this.repo.delete(put.namespace, put.key);
      else {
        const vectors = this.index ? await this.index.vectorsFor(put.value, put.index) : undefined;
        await this.repo.put(put.namespace, put.key, put.value, {
          ...(this.ttl.defaultTtl ? { ttl: this.ttl.defaultTtl } : {}),
          ...(put.index !== undefined ? { index: put.index } : {}),
          ...(vectors ? { vectors } : {}),
        });
      }
      return undefined;
    }
    if ("key" in op) {
      const item = await this.repo.get(op.namespace, op.key, this.ttl.refreshOnRead ? { refreshTtl: true } : undefined);
      return item ? toLangGraphItem(item) : null;
    }
    const list = op as ListNamespacesOperation;
    const prefix = list.matchConditions?.find((c) => c.matchType === "prefix")?.path;
    const suffix = list.matchConditions?.find((c) => c.matchType === "suffix")?.path;
    return this.repo.listNamespaces({ prefix, suffix, maxDepth: list.maxDepth, limit: list.limit, offset: list.offset });
  }
}

function toLangGraphItem(item: Item): LangGraphItem {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    createdAt: new Date(item.created_at),
    updatedAt: new Date(item.updated_at),
  };
}
