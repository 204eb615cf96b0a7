import { InvalidInputError, type Storage } from "@agent-server/core";
import { storeIndexSettings, type StoreIndexConfig } from "./config.js";
import { loadEmbedder } from "./embeddings.js";
import { hasVectorSupport, REINDEX_COMMAND, StoreIndex } from "./store-index.js";

export interface StoreIndexLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Start-up of langgraph.json `store.index`: loads the embedder from the project, checks the database's
 * recorded identity and logs how queries are scored (the driver's `vectorSearch`). Without `store.index`,
 * a recorded identity is forgotten (with a warning): this server's puts write no vectors, so a later start
 * with an index must not trust the old ones; it then asks for a re-index. A driver without vector
 * methods cannot serve `store.index`: the start stops.
 */
export async function openStoreIndex(
  config: StoreIndexConfig | null | undefined,
  cwd: string,
  storage: Storage,
  log: StoreIndexLog,
): Promise<StoreIndex | undefined> {
  const store = storage.store;
  if (!config) {
    if (hasVectorSupport(store) && (await store.getIndexIdentity!()) !== null) {
      await store.setIndexIdentity!(null);
      log.warn(
        { store_index: null },
        `langgraph.json has no store.index: the store's semantic index is forgotten (puts write no vectors); after configuring one again, run \`${REINDEX_COMMAND}\``,
      );
    }
    return undefined;
  }
  if (!hasVectorSupport(store)) {
    throw new InvalidInputError(
      `langgraph.json store.index: storage driver "${storage.kind}" has no vector methods (StoreRepo.getIndexIdentity, setIndexIdentity, scanIndexable, replaceVectors)`,
    );
  }
  const index = new StoreIndex(storeIndexSettings(config), await loadEmbedder(config.embed, cwd));
  const status = await index.checkIdentity(store);
  const method = store.vectorSearch ?? "exact scan";
  const fields = { embed: index.settings.embed, dims: index.settings.dims, index_fields: index.settings.fields, vector_search: method };
  log.info(
    fields,
    `Store index: ${index.settings.embed}, ${index.settings.dims} dims, fields ${index.settings.fields.join(", ")}; searches with ${method}`,
  );
  if (status === "stale") log.warn({ ...fields, recorded: index.stale?.recorded ?? null }, index.staleMessage());
  return index;
}
