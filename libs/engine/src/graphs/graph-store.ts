import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { RepoBackedStore, type Storage, type StoreIndexer } from "@agent-server/core";
import type { TtlOptions } from "../config/ttl.js";

/**
 * The LangGraph store graphs receive. Their own store operations carry no TTL: langgraph.json `store.ttl`
 * gives their puts the default and their reads the refresh, over the driver's items (a driver without TTL
 * sweeps keeps its own store); `store.index` embeds their puts and queries. With neither, the driver's own.
 */
export function graphStore(storage: Storage, ttl: TtlOptions, index: StoreIndexer | undefined): BaseStore {
  const storeTtl = storage.store.sweepExpired
    ? { defaultTtl: ttl.store.defaultMinutes, refreshOnRead: ttl.store.refreshOnRead }
    : undefined;
  return storeTtl || index ? new RepoBackedStore(storage.store, storeTtl, index) : storage.langgraphStore;
}
